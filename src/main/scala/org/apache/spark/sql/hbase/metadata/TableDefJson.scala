// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import com.fasterxml.jackson.core.JsonProcessingException
import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.types.DataType

/**
 * The catalog's stored form of a table definition: versioned JSON, never Java serialization.
 * Types use Spark's own JSON form of DataType.
 *
 * As Iceberg's format versions do, a version says what a reader must understand: a definition is
 * written in the lowest version that holds it, so that older plugins keep reading what they can
 * honour, and fields a reader does not know are ignored. Version 2 adds `markerFamily` (key-only
 * tables, and tables whose first family was dropped) and write-time columns (`writeTimeOf`),
 * which a version 1 reader would take for key columns. `ownsHBaseTable` (CREATE TABLE made the
 * HBase table, so DROP TABLE ... PURGE may delete it) needs no new version: a reader that ignores
 * it only never deletes the HBase table. Version 3 adds the packed layout (`layout`, and each
 * family's `packedSlots`), whose cells an older reader would take for values of no column.
 * Version 4 adds global indexes (type "global" in `indexes`): an older reader would drop them when
 * it rewrote the definition, leaving their HBase tables and the region servers' maintenance behind.
 */
object TableDefJson {

  /** Packed families' slots as a JSON object of qualifier lists, families in name order. */
  private[metadata] def putSlots(node: ObjectNode, slots: Map[String, Seq[String]]): Unit =
    slots.toSeq.sortBy(_._1).foreach { case (family, qualifiers) =>
      val list = node.putArray(family)
      qualifiers.foreach(q => list.add(q))
    }

  /** The slots [[putSlots]] wrote. */
  private[metadata] def slotsOf(node: JsonNode): Map[String, Seq[String]] =
    node.properties().asScala.map(e => e.getKey -> e.getValue.elements().asScala.map(_.asText()).toSeq).toMap

  val FormatVersion = 4

  private val mapper = new ObjectMapper()

  def toJson(table: HBaseTableDef): String = {
    val root = mapper.createObjectNode()
    root.put(
      "version",
      if (table.globalIndexes.nonEmpty) 4
      else if (table.isPacked) 3
      else if (table.markerFamily.isDefined || table.writeTimes.nonEmpty) 2 else 1
    )
    root.put("name", table.name)
    root.put("hbaseNamespace", table.hbaseTable.namespace)
    root.put("hbaseTable", table.hbaseTable.name)
    root.put("format", table.format.name)
    table.format match {
      case TableFormat.StringFormat(delimiter) => root.put("keyDelimiter", delimiter)
      case TableFormat.Binary =>
    }
    val keys = root.putArray("keyColumns")
    table.keyColumns.foreach(k => keys.add(k))
    val cols = root.putArray("columns")
    table.columns.foreach { c =>
      val node: ObjectNode = cols.addObject()
      node.put("name", c.name)
      node.set[JsonNode]("type", mapper.readTree(c.dataType.json))
      node.put("nullable", c.nullable)
      c.cell.foreach { cell =>
        node.put("family", cell.family)
        node.put("qualifier", cell.qualifier)
      }
      c.writeTimeOf.foreach { cell =>
        val of = node.putObject("writeTimeOf")
        of.put("family", cell.family)
        of.put("qualifier", cell.qualifier)
      }
      c.comment.foreach(node.put("comment", _))
    }
    table.markerFamily.foreach(root.put("markerFamily", _))
    if (table.isPacked) {
      root.put("layout", table.layout.name)
      putSlots(root.putObject("packedSlots"), table.packedSlots)
    }
    if (table.ownsHBaseTable) root.put("ownsHBaseTable", true)
    if (table.indexes.nonEmpty || table.globalIndexes.nonEmpty) {
      val indexes = root.putArray("indexes")
      table.indexes.foreach { i =>
        val node = indexes.addObject()
        node.put("name", i.name)
        node.put("type", RangeIndexDef.Type)
        val columns = node.putArray("columns")
        i.columns.foreach(c => columns.add(c))
        node.put("chunkRows", i.chunkRows)
        i.generation.foreach(node.put("generation", _))
      }
      table.globalIndexes.foreach { i =>
        val node = indexes.addObject()
        node.put("name", i.name)
        node.put("type", GlobalIndexDef.Type)
        val columns = node.putArray("columns")
        i.columns.foreach(c => columns.add(c))
        val covered = node.putArray("covered")
        i.covered.foreach(c => covered.add(c))
        node.put("indexNamespace", i.indexTable.namespace)
        node.put("indexTable", i.indexTable.name)
        node.put("state", i.state.name)
        i.builtRows.foreach(node.put("builtRows", _))
      }
    }
    mapper.writeValueAsString(root)
  }

  /** The definition `json` holds; fails with [[UnreadableTableDef]], saying what is wrong, when it cannot be read. */
  def fromJson(json: String): HBaseTableDef =
    try parse(json)
    catch {
      case e: UnreadableTableDef => throw e
      case e: HBaseSQLException => throw new UnreadableTableDef(s"is malformed: ${e.getMessage}")
      case e: JsonProcessingException => throw new UnreadableTableDef(s"is not valid JSON (${e.getOriginalMessage})")
      case NonFatal(e) => throw new UnreadableTableDef(s"is malformed (${e.getClass.getSimpleName}: ${e.getMessage})")
    }

  private def parse(json: String): HBaseTableDef = {
    val root = mapper.readTree(json)
    if (root == null || !root.isObject) throw new UnreadableTableDef("is not a JSON object")
    val version = root.path("version").asInt(-1)
    if (version < 1 || version > FormatVersion) {
      throw new UnreadableTableDef(s"is in format version ${root.path("version")}, and this spark-hbase-sql reads " +
        s"versions 1 to $FormatVersion" +
        (if (version > FormatVersion) ": a newer spark-hbase-sql wrote it; use that version or newer" else ""))
    }
    def field(node: JsonNode, name: String): JsonNode =
      Option(node.get(name)).getOrElse(throw new UnreadableTableDef(s"lacks field '$name'"))
    def text(node: JsonNode, name: String): String = {
      val v = field(node, name)
      if (!v.isTextual) throw new UnreadableTableDef(s"has a field '$name' that is not a string")
      v.asText()
    }
    def array(node: JsonNode, name: String): Seq[JsonNode] = {
      val v = field(node, name)
      if (!v.isArray) throw new UnreadableTableDef(s"has a field '$name' that is not an array")
      v.elements().asScala.toSeq
    }
    val columns = array(root, "columns").map { c =>
      val cell = if (c.has("family")) Some(CellRef(text(c, "family"), text(c, "qualifier"))) else None
      HBaseColumn(
        name = text(c, "name"),
        dataType = DataType.fromJson(mapper.writeValueAsString(field(c, "type"))),
        nullable = c.path("nullable").asBoolean(true),
        cell = cell,
        comment = Option(c.get("comment")).map(_.asText()),
        writeTimeOf = Option(c.get("writeTimeOf")).map(w => CellRef(text(w, "family"), text(w, "qualifier")))
      )
    }
    val allIndexes = Option(root.get("indexes")).map(_ => array(root, "indexes")).getOrElse(Nil)
    allIndexes.map(text(_, "type")).filterNot(Set(RangeIndexDef.Type, GlobalIndexDef.Type)).foreach { kind =>
      throw new UnreadableTableDef(s"has an index of unknown type '$kind'")
    }
    val indexes = allIndexes.filter(text(_, "type") == RangeIndexDef.Type).map { i =>
      RangeIndexDef(
        text(i, "name"),
        array(i, "columns").map(_.asText()),
        i.path("chunkRows").asInt(RangeIndexDef.DefaultChunkRows),
        Option(i.get("generation")).filter(_.canConvertToLong).map(_.asLong())
      )
    }
    val globalIndexes = allIndexes.filter(text(_, "type") == GlobalIndexDef.Type).map { i =>
      val columns = array(i, "columns").map(_.asText())
      if (columns.isEmpty) throw new UnreadableTableDef(s"has a global index '${text(i, "name")}' of no column")
      GlobalIndexDef(
        text(i, "name"),
        columns,
        array(i, "covered").map(_.asText()),
        HBaseTableName(text(i, "indexNamespace"), text(i, "indexTable")),
        GlobalIndexState.parse(text(i, "state")),
        Option(i.get("builtRows")).filter(_.canConvertToLong).map(_.asLong())
      )
    }
    val keyColumns = array(root, "keyColumns").map(_.asText())
    if (keyColumns.isEmpty) throw new UnreadableTableDef("has no key columns")
    keyColumns.filterNot(k => columns.exists(_.name.equalsIgnoreCase(k))).foreach(k =>
      throw new UnreadableTableDef(s"has a key column '$k' that is not one of its columns")
    )
    val table = HBaseTableDef(
      name = text(root, "name"),
      hbaseTable = HBaseTableName(text(root, "hbaseNamespace"), text(root, "hbaseTable")),
      columns = columns,
      keyColumns = keyColumns,
      format = TableFormat.parse(text(root, "format"), Option(root.get("keyDelimiter")).map(_.asText())),
      indexes = indexes,
      markerFamily = Option(root.get("markerFamily")).map(_.asText()),
      ownsHBaseTable = root.path("ownsHBaseTable").asBoolean(false),
      layout = Option(root.get("layout")).fold[TableLayout](TableLayout.Cells)(l => TableLayout.parse(l.asText())),
      packedSlots = Option(root.get("packedSlots")).filter(_.isObject).map(slotsOf).getOrElse(Map.empty),
      globalIndexes = globalIndexes
    )
    if (table.isPacked) table.values.flatMap(_.cell).find(c => table.slotOf(c) < 0).foreach { c =>
      throw new UnreadableTableDef(s"packs cell $c in no slot of its family")
    }
    table.globalIndexes.flatMap(i => (i.columns ++ i.covered).map(i -> _)).find(p => !table.hasColumn(p._2)).foreach {
      case (i, c) => throw new UnreadableTableDef(s"has a global index '${i.name}' over '$c', which is not a column")
    }
    table
  }
}

/** A catalog entry that cannot be read; `problem` says what is wrong with it, as "is not valid JSON (...)". */
final class UnreadableTableDef(val problem: String) extends HBaseSQLException(s"The catalog entry $problem")
