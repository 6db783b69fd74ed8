// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.{DescribedInExplain, Utf8}
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef, TableFormat}
import org.apache.spark.sql.hbase.connection.{HBaseAccessDenied, HBaseClusterConf, HBaseConnections, TableRights}
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.types.StringType

/** DESCRIBE of an HBase table, named by one part or through an HBase catalog. */
case class DescribeMappedTableCommand(table: HBaseTableDef, cluster: HBaseClusterConf)
    extends LeafRunnableCommand
    with DescribedInExplain[LogicalPlan] {

  override def simpleString(maxFields: Int): String = s"$nodeName ${table.described}"

  override val output: Seq[Attribute] = DescribeMappedTableCommand.Output.map(_.newInstance())

  override def run(session: SparkSession): Seq[Row] = {
    TableRights.requireReadable(cluster, "DESCRIBE", table.name, table.hbaseTable.hbase)
    DescribeMappedTableCommand.rows(table, cluster)
  }
}

/**
 * What DESCRIBE shows of an HBase table: its columns with Spark's type strings and, in the comment,
 * their key position or cell and NOT NULL; then the mapping, its families' HBase settings and
 * range indexes.
 */
object DescribeMappedTableCommand {
  val Output: Seq[AttributeReference] = Seq(
    AttributeReference("col_name", StringType, nullable = false)(),
    AttributeReference("data_type", StringType, nullable = false)(),
    AttributeReference("comment", StringType, nullable = true)()
  )

  def rows(table: HBaseTableDef, cluster: HBaseClusterConf): Seq[Row] = {
    // Spark's own type strings, as its DESCRIBE gives them: tools (dbt, BI type maps) compare them.
    val columns = table.columns.map(c => Row(c.name, c.dataType.simpleString, comment(table, c)))
    columns ++ Seq(
      Row("", "", null),
      Row("# HBase mapping", "", null),
      Row("HBase table", table.hbaseTable.toString, null),
      Row("Primary key", table.keyColumns.mkString(", "), null),
      Row(
        "Format",
        table.format match {
          case TableFormat.StringFormat(delimiter) => s"StringFormat (key delimiter '$delimiter')"
          case other => other.name
        },
        null
      ),
      Row(
        "Layout",
        table.layout.name,
        if (table.isPacked) {
          val slots = table.packedSlots.toSeq.sortBy(_._1).map { case (family, qualifiers) =>
            s"$family: ${qualifiers.mkString(", ")}"
          }
          s"one packed cell per family per row; slots ${slots.mkString("; ")}"
        } else "one cell per value column"
      ),
      Row(
        "Row marker family",
        table.rowMarkerFamily,
        if (table.isKeyOnly) "key-only: every HBase row is a row; new rows get an empty cell here"
        else "rows with no value keep an empty cell here"
      ),
      Row("Regions", HBaseRegions.of(cluster, table.hbaseTable).size.toString, null)
    ) ++
      familyRows(cluster, table) ++
      table.indexes.map(i =>
        Row(s"Range index ${i.name}", s"minmax (${i.columns.mkString(", ")})", s"chunkRows ${i.chunkRows}")
      ) ++
      table.globalIndexes.map { i =>
        val covered = if (i.covered.isEmpty) "" else s" include (${i.covered.mkString(", ")})"
        Row(
          s"Global index ${i.name}",
          s"global (${i.columns.mkString(", ")})$covered",
          s"${i.state.name}; HBase table ${i.indexTable}"
        )
      }
  }

  /** A column's key position or cell, NOT NULL where it is, and its own comment. */
  def comment(table: HBaseTableDef, c: HBaseColumn): String = {
    val mapping = c.cell.map(cell => s"cell $cell")
      .orElse(c.writeTimeOf.map(cell => s"write time of cell $cell (read-only)"))
      .getOrElse(s"row key part ${table.keyColumns.indexOf(c.name) + 1} of ${table.keyColumns.size}")
    val notNull = if (c.nullable) None else Some("NOT NULL")
    (mapping +: (notNull.toSeq ++ c.comment)).mkString("; ")
  }

  /**
   * A row of HBase settings per family; for a user who may read the table but not administer it,
   * a row that says why they are not shown.
   */
  private def familyRows(cluster: HBaseClusterConf, table: HBaseTableDef): Seq[Row] =
    try families(cluster, table).map(f => Row(s"Family ${Utf8.string(f.getName)}", FamilySettings.describe(f), null))
    catch {
      case e: Exception if HBaseAccessDenied.message(e).isDefined =>
        Seq(Row(
          "Families",
          "not shown",
          "HBase shows a table's family settings only to users with ADMIN or CREATE on it"
        ))
    }

  /** The HBase settings of the families the table reads (all of a key-only table's). */
  private def families(cluster: HBaseClusterConf, table: HBaseTableDef): Seq[ColumnFamilyDescriptor] =
    HBaseConnections.withConnection(cluster) { connection =>
      val admin = connection.getAdmin
      try {
        val all = admin.getDescriptor(TableName.valueOf(
          table.hbaseTable.namespace,
          table.hbaseTable.name
        )).getColumnFamilies.toSeq
        if (table.isKeyOnly) all else all.filter(f => table.rowFamilies.contains(Utf8.string(f.getName)))
      } finally admin.close()
    }
}
