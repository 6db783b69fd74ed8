// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef, TableDefinitionStore}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, SparkFallback}

/** Changes a table definition atomically: it fails, changing nothing, if another session got there first. */
private[commands] object AlterDefinition {
  def apply(catalog: TableDefinitionStore, current: HBaseTableDef, updated: HBaseTableDef, statement: String): Unit =
    if (!catalog.replace(current, updated)) {
      throw new HBaseSQLException(s"$statement: table '${current.name}' was changed by another session; run it again")
    }
}

/** ALTER TABLE t ADD [COLUMN] c TYPE MAPPED BY (c = cf.cq), or (c = WRITETIME(cf.cq)). The family must exist in HBase. */
case class AddHBaseColumnCommand(table: HBaseTableIdent, column: HBaseColumn) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"ALTER TABLE $table ADD COLUMN ${column.name}"
    val catalog = table.store(session, statement)
    val current =
      catalog.get(table.name).getOrElse(throw new HBaseSQLException(s"$statement: HBase table '$table' does not exist"))
    val updated = current.withColumn(column)
    HBaseConnections.withConnection(catalog.cluster) { connection =>
      val admin = connection.getAdmin
      try MappedFamilies.requirePresent(admin, current.hbaseTable, column.readsCell.map(_.family).toSeq, statement)
      finally admin.close()
    }
    AlterDefinition(catalog, current, updated, statement)
    Seq.empty
  }
}

/** ALTER TABLE t DROP [COLUMN] c: forgets the mapping; the cells stay in HBase. */
case class DropHBaseColumnCommand(table: Seq[String], column: String, sparkPlan: LogicalPlan)
    extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"ALTER TABLE ${table.mkString(".")} DROP COLUMN $column"
    HBaseTableIdent.sparkFirst(session, table, statement) match {
      case None => SparkFallback.run(session, sparkPlan)
      case Some((catalog, current)) =>
        AlterDefinition(catalog, current, current.withoutColumn(column), statement)
        Seq.empty
    }
  }
}
