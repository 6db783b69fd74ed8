// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.Attribute
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.hbase.common.{DescribedInExplain, HBaseSQLException}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, TableRights}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef

/**
 * DESCRIBE of one column of an HBase table (`DESCRIBE t v`), named by one part or through an
 * HBase catalog: the rows Spark's DESCRIBE of a column gives (its name, type and comment), with
 * DESCRIBE's comment, to users HBase lets read the table, as [[DescribeMappedTableCommand]].
 */
case class DescribeMappedColumnCommand(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    column: Seq[String],
    override val output: Seq[Attribute]
) extends LeafRunnableCommand
    with DescribedInExplain[LogicalPlan] {

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${table.described} column ${column.mkString(".")}"

  override def run(session: SparkSession): Seq[Row] = {
    TableRights.requireReadable(cluster, "DESCRIBE", table.name, table.hbaseTable.hbase)
    val resolver = session.sessionState.conf.resolver
    // As written, or qualified by the table's name (and its catalog's), as Spark gives a column it resolved.
    val named = column match {
      case Seq(name) => Some(name)
      case parts if parts.size > 1 && resolver(parts(parts.size - 2), table.name) => Some(parts.last)
      case _ => None
    }
    val described = named.flatMap(name => table.columns.find(c => resolver(c.name, name)))
    val c = described.getOrElse(throw new HBaseSQLException(
      s"DESCRIBE of table '${table.name}': it has no column ${column.mkString(".")} " +
        s"(its columns: ${table.columns.map(_.name).mkString(", ")})"
    ))
    Seq(
      Row("col_name", c.name),
      Row("data_type", c.dataType.simpleString),
      Row("comment", DescribeMappedTableCommand.comment(table, c))
    )
  }
}
