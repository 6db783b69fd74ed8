package org.apache.spark.sql.hbase.catalog

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.{JsonNode, ObjectMapper}
import com.fasterxml.jackson.databind.node.ObjectNode

import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.types.DataType

/**
 * The catalog's stored form of a table definition: versioned JSON, never Java serialization.
 * Types use Spark's own JSON form of DataType.
 *
 * As Iceberg's format versions do, a version says what a reader must understand: a definition is
 * written in the lowest version that holds it, so that older plugins keep reading what they can
 * honour, and fields a reader does not know are ignored. Version 2 adds `markerFamily` (key-only
 * tables, and tables whose first family was dropped) and write-time columns (`writeTimeOf`),
 * which a version 1 reader would take for key columns.
 */
object TableDefJson {
  val FormatVersion = 2

  private val mapper = new ObjectMapper()

  def toJson(table: HBaseTableDef): String = {
    val root = mapper.createObjectNode()
    root.put("version", if (table.markerFamily.isDefined || table.writeTimes.nonEmpty) 2 else 1)
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
    if (table.indexes.nonEmpty) {
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
    }
    mapper.writeValueAsString(root)
  }

  def fromJson(json: String): HBaseTableDef = {
    val root = mapper.readTree(json)
    val version = root.path("version").asInt(-1)
    if (version < 1 || version > FormatVersion) {
      val table = Option(root.get("name")).map(n => s"table '${n.asText()}'").getOrElse("a table")
      throw new HBaseSqlException(s"The catalog defines $table in format version $version, and this " +
        s"spark-hbase-sql reads versions 1 to $FormatVersion" +
        (if (version > FormatVersion) ": it was defined by a newer spark-hbase-sql; use that version or newer" else ""))
    }
    def text(node: JsonNode, field: String): String = {
      val v = node.get(field)
      if (v == null || !v.isTextual) throw new HBaseSqlException(s"Catalog entry lacks field '$field': $json")
      v.asText()
    }
    val columns = root.get("columns").elements().asScala.map { c =>
      val cell = if (c.has("family")) Some(CellRef(text(c, "family"), text(c, "qualifier"))) else None
      HBaseColumn(
        name = text(c, "name"),
        dataType = DataType.fromJson(mapper.writeValueAsString(c.get("type"))),
        nullable = c.path("nullable").asBoolean(true),
        cell = cell,
        comment = Option(c.get("comment")).map(_.asText()),
        writeTimeOf = Option(c.get("writeTimeOf")).map(w => CellRef(text(w, "family"), text(w, "qualifier")))
      )
    }.toSeq
    val indexes = Option(root.get("indexes")).map(_.elements().asScala.map { i =>
      if (text(i, "type") != RangeIndexDef.Type)
        throw new HBaseSqlException(s"Catalog entry has an index of unknown type: $json")
      RangeIndexDef(
        text(i, "name"),
        i.get("columns").elements().asScala.map(_.asText()).toSeq,
        i.path("chunkRows").asInt(RangeIndexDef.DefaultChunkRows),
        Option(i.get("generation")).filter(_.canConvertToLong).map(_.asLong())
      )
    }.toSeq).getOrElse(Nil)
    HBaseTableDef(
      name = text(root, "name"),
      hbaseTable = HBaseTableName(text(root, "hbaseNamespace"), text(root, "hbaseTable")),
      columns = columns,
      keyColumns = root.get("keyColumns").elements().asScala.map(_.asText()).toSeq,
      format = TableFormat.parse(text(root, "format"), Option(root.get("keyDelimiter")).map(_.asText())),
      indexes = indexes,
      markerFamily = Option(root.get("markerFamily")).map(_.asText())
    )
  }
}
