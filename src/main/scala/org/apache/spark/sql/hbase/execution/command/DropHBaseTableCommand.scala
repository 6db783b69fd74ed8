package org.apache.spark.sql.hbase.execution.command

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.{HBaseCatalog, ReadableEntry, SessionCatalogs, UnreadableEntry}

/**
 * DROP TABLE of an HBase table named by one part, when Spark's own catalog has no table or view
 * of that name: removes only the mapping and its range indexes; the HBase table and its data stay.
 */
case class DropHBaseTableCommand(name: String, ifExists: Boolean) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    if (!DropHBaseTableCommand.drop(session, SessionCatalogs.of(session), name) && !ifExists) {
      throw new HBaseSqlException(s"DROP TABLE $name: HBase table '$name' does not exist")
    }
    Seq.empty
  }
}

object DropHBaseTableCommand {

  /**
   * Drops the mapping of `name` and its range indexes; false when `catalog` has no such table.
   * A broken entry is dropped too, since that is how a user gets rid of it; the statistics of its
   * indexes, if it had any, stay behind unread, as a new build never reads an old generation.
   */
  def drop(session: SparkSession, catalog: HBaseCatalog, name: String): Boolean = catalog.drop(name) match {
    case Some(ReadableEntry(table)) =>
      // The indexes of the definition removed, not of one read before: another session may have added one.
      RangeIndexes.forgetAll(session, catalog, table)
      true
    case Some(_: UnreadableEntry) => true
    case None => false
  }
}
