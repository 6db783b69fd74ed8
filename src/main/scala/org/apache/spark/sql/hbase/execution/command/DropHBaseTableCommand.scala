package org.apache.spark.sql.hbase.execution.command

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.catalog.{HBaseCatalog, SessionCatalogs}

/** DROP TABLE of an HBase table removes only the mapping and its range indexes; the HBase table and its data stay. */
case class DropHBaseTableCommand(name: String, sparkPlan: LogicalPlan) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] =
    if (DropHBaseTableCommand.drop(session, SessionCatalogs.of(session), name)) Seq.empty
    else SparkFallback.run(session, sparkPlan)
}

object DropHBaseTableCommand {
  /** Drops the mapping of `name` and its range indexes; false when `catalog` has no such table. */
  def drop(session: SparkSession, catalog: HBaseCatalog, name: String): Boolean = catalog.get(name) match {
    case Some(table) if catalog.drop(name) =>
      RangeIndexes.forgetAll(session, catalog, table)
      true
    case _ => false
  }
}
