// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.DescribedInExplain
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, TableRights}
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableFormat, TableLayout}
import org.apache.spark.sql.types.StringType

/**
 * SHOW CREATE TABLE of an HBase table: the CREATE TABLE ... MAPPED BY statement that maps the same
 * HBase table the same way (columns, key, cells, format, layout). Region boundaries and family
 * settings belong to the HBase table, which the statement finds as it is.
 */
case class ShowCreateMappedTableCommand(table: HBaseTableDef, cluster: HBaseClusterConf)
    extends LeafRunnableCommand
    with DescribedInExplain[LogicalPlan] {

  override def simpleString(maxFields: Int): String = s"$nodeName ${table.described}"
  override val output: Seq[Attribute] = Seq(AttributeReference("createtab_stmt", StringType, nullable = false)())

  override def run(session: SparkSession): Seq[Row] = {
    TableRights.requireReadable(cluster, "SHOW CREATE TABLE", table.name, table.hbaseTable.hbase)
    Seq(Row(ShowCreateMappedTableCommand.statement(table)))
  }
}

object ShowCreateMappedTableCommand {
  private def name(text: String): String = s"`${text.replace("`", "``")}`"

  private def string(text: String): String = s"'${text.replace("\\", "\\\\").replace("'", "\\'")}'"

  def statement(table: HBaseTableDef): String = {
    val columns = table.columns.map { c =>
      val notNull = if (c.nullable || c.isKey) "" else " NOT NULL"
      s"  ${name(c.name)} ${c.dataType.sql}$notNull${c.comment.fold("")(t => s" COMMENT ${string(t)}")}"
    }
    val key = s"  PRIMARY KEY (${table.keyColumns.map(name).mkString(", ")})"
    val cells = table.columns.flatMap { c =>
      c.cell.map(cell => s"${name(c.name)}=${name(cell.family)}.${name(cell.qualifier)}")
        .orElse(c.writeTimeOf.map(cell => s"${name(c.name)}=WRITETIME(${name(cell.family)}.${name(cell.qualifier)})"))
    }
    val hbaseTable = string(table.hbaseTable.toString)
    val mapped =
      if (cells.isEmpty) s"MAPPED BY ($hbaseTable)" else s"MAPPED BY ($hbaseTable, COLS=[${cells.mkString(", ")}])"
    val format = table.format match {
      case TableFormat.StringFormat(delimiter) => Some(s"IN StringFormat DELIMITER ${string(delimiter)}")
      case TableFormat.Binary => None
    }
    val layout = if (table.layout == TableLayout.Cells) None else Some(s"LAYOUT ${table.layout.name}")
    (s"CREATE TABLE ${name(table.name)} (\n${(columns :+ key).mkString(",\n")}\n)" +: (Seq(mapped) ++ format ++ layout))
      .mkString("\n")
  }
}
