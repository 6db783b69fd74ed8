// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import java.util.Base64

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.codec.{BinaryValueCodec, RowRange}
import org.apache.spark.sql.types.DataType

/**
 * The stored form of one chunk's statistics: versioned JSON, as all our metadata. Row keys and
 * min/max values are base64 of their bytes; values use the binary cell encoding of their type,
 * which reads back every value exactly.
 */
object ChunkStatsJson {
  val FormatVersion = 1

  private val mapper = new ObjectMapper()
  private val base64 = Base64.getEncoder
  private val unbase64 = Base64.getDecoder

  /** @param typeOf each indexed column's type */
  def toJson(chunk: ChunkStats, typeOf: String => DataType): String = {
    val root = mapper.createObjectNode()
    root.put("version", FormatVersion)
    root.put("start", base64.encodeToString(chunk.range.start))
    root.put("stop", base64.encodeToString(chunk.range.stop))
    root.put("rows", chunk.rowCount)
    val columns = root.putObject("columns")
    chunk.columns.toSeq.sortBy(_._1).foreach { case (name, s) =>
      val node = columns.putObject(name)
      node.put("nulls", s.nullCount)
      node.put("exact", s.exact)
      def value(v: Any) = base64.encodeToString(BinaryValueCodec.encode(typeOf(name), v))
      s.min.foreach(v => node.put("min", value(v)))
      s.max.foreach(v => node.put("max", value(v)))
    }
    mapper.writeValueAsString(root)
  }

  /** @param typeOf the type of each column the index holds, None for a column it does not know */
  def fromJson(json: String, typeOf: String => Option[DataType]): ChunkStats = {
    def corrupt(what: String) = new HBaseSQLException(s"Range index statistics $what: $json")
    val root = mapper.readTree(json)
    val version = root.path("version").asInt(-1)
    if (version != FormatVersion)
      throw corrupt(s"have format version $version; this build reads version $FormatVersion")
    def bytes(node: JsonNode, field: String): Array[Byte] = {
      val v = node.get(field)
      if (v == null || !v.isTextual) throw corrupt(s"lack field '$field'")
      unbase64.decode(v.asText())
    }
    def count(node: JsonNode, field: String): Long = {
      val v = node.get(field)
      if (v == null || !v.canConvertToLong || v.asLong() < 0) throw corrupt(s"lack a count in '$field'")
      v.asLong()
    }
    val columns =
      Option(root.get("columns")).map(_.properties().asScala.toSeq).getOrElse(throw corrupt("lack field 'columns'"))
    ChunkStats(
      RowRange(bytes(root, "start"), bytes(root, "stop")),
      count(root, "rows"),
      columns.map { entry =>
        val (name, node) = (entry.getKey, entry.getValue)
        val dataType = typeOf(name).getOrElse(throw corrupt(s"name column '$name', which the index does not hold"))
        def value(field: String): Option[Any] = Option(node.get(field)).map { _ =>
          val b = bytes(node, field)
          Option(BinaryValueCodec.decode(
            dataType,
            b,
            0,
            b.length
          )).getOrElse(throw corrupt(s"hold no ${dataType.sql} in '$name.$field'"))
        }
        name -> ColumnStats(value("min"), value("max"), count(node, "nulls"), node.path("exact").asBoolean(false))
      }.toMap
    )
  }
}
