// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}

/**
 * The slots of an HBase table's packed families (which column each packed value is), as its last
 * packed mapping had them, kept in the catalog apart from the definitions so that they outlive
 * DROP TABLE: a table mapped over the HBase table again reads the stored values in them. A row
 * `0x00 "packed" 0x00 <namespace:name>`, which no SQL name lowers to, holding versioned JSON
 * `{"version":1,"hbaseTable":"ns:name","slots":{"f":["a","b"]}}` in a column the catalog's reads
 * of definitions do not ask for.
 */
object PackedSlotsRecord {
  val FormatVersion = 1
  private val mapper = new ObjectMapper()

  def rowKey(hbaseTable: HBaseTableName): Array[Byte] =
    Utf8.bytes(s"\u0000packed\u0000${hbaseTable.namespace}:${hbaseTable.name}")

  def toJson(hbaseTable: HBaseTableName, slots: Map[String, Seq[String]]): String = {
    val root = mapper.createObjectNode()
      .put("version", FormatVersion)
      .put("hbaseTable", s"${hbaseTable.namespace}:${hbaseTable.name}")
    TableDefJson.putSlots(root.putObject("slots"), slots)
    mapper.writeValueAsString(root)
  }

  /** The slots `json` holds; fails naming the HBase table when it is not a record this version reads. */
  def fromJson(hbaseTable: HBaseTableName, json: String): Map[String, Seq[String]] = {
    def broken(problem: String) = new HBaseSQLException(
      s"The catalog's record of the packed slots of HBase table '$hbaseTable' $problem; CREATE TABLE over it " +
        "needs LAYOUT PACKED or LAYOUT CELLS until DROP TABLE ... PURGE or a new packed mapping replaces it"
    )
    val root = scala.util.Try(mapper.readTree(json)).getOrElse(throw broken("is not valid JSON"))
    if (root == null || !root.isObject) throw broken("is not a JSON object")
    val version = Option(root.get("version")).filter(_.isInt).map(_.asInt())
    if (!version.contains(FormatVersion)) throw broken(s"is in format version ${version.getOrElse("?")}, not 1")
    val slots = Option(root.get("slots")).filter(_.isObject).getOrElse(throw broken("has no slots"))
    slots.properties().asScala.find(e => !e.getValue.isArray || !e.getValue.elements().asScala.forall(_.isTextual))
      .foreach(e => throw broken(s"gives family '${e.getKey}' no list of qualifiers"))
    TableDefJson.slotsOf(slots)
  }
}
