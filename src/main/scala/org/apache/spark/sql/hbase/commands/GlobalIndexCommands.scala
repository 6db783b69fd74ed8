// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.util.control.NonFatal

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.codec.CellTypes
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, RangeIndexes}
import org.apache.spark.sql.hbase.globalindex.{GlobalIndexes, IndexMaintenance, IndexMarks, IndexTables}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, GlobalIndexState, HBaseTableDef, TableDefinitionStore}

/**
 * CREATE INDEX [IF NOT EXISTS] i ON [TABLE] t USING global (c, ...) [OPTIONS (include 'a, b')].
 * In order: the index is claimed in the catalog (building), its HBase table made, the region
 * servers told to maintain it, its rows written for the rows there are, and it is marked ready.
 * If any step fails, each done step is undone: the claim withdrawn, the maintenance stopped, the
 * table deleted.
 */
case class CreateGlobalIndexCommand(
    tableName: HBaseTableIdent,
    indexName: String,
    columns: Seq[String],
    options: Map[String, String],
    ifNotExists: Boolean
) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"CREATE INDEX $indexName ON $tableName"
    val catalog = tableName.store(session, statement)
    val table = RangeIndexes.table(catalog, tableName, statement)
    if (table.hasIndexNamed(indexName)) {
      if (ifNotExists) return Seq.empty
      throw new HBaseSQLException(s"$statement: table '${table.name}' already has an index '$indexName'")
    }
    val index = GlobalIndexDef.fromStatement(
      table,
      indexName,
      columns,
      options,
      c => CellTypes.of(table.format, c.dataType).isDefined
    )
    val skew = session.sessionState.conf.getConf(HBaseSQLConf.IndexClockSkew)
    val splits = GlobalIndexBuild.splitPoints(catalog.cluster, table, index)
    if (!catalog.replace(table, table.withGlobalIndex(index))) {
      throw new HBaseSQLException(s"$statement: table '${table.name}' was changed by another session; run it again")
    }
    var tableMade = false
    try {
      HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try IndexTables.create(admin, table, index, splits, statement)
        finally admin.close()
      }
      tableMade = true
      // Every write the region servers take after this time is maintained by them at a later one.
      val buildTime = catalog.serverTime() - skew
      HBaseConnections.withConnection(catalog.cluster) { connection =>
        val indexTable = connection.getTable(index.indexTable.hbase)
        try IndexMarks.markBuild(indexTable, buildTime)
        finally indexTable.close()
      }
      IndexMaintenance.sync(catalog, table.hbaseTable, statement)
      val rows = GlobalIndexBuild.write(session, catalog.cluster, table, index, buildTime)
      HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try IndexTables.buildEnded(admin, index.indexTable)
        finally admin.close()
      }
      RangeIndexes.update(catalog, table.name, statement) { now =>
        val claimed = now.globalIndex(indexName).filter(ours(_, index, now, table)).getOrElse(
          throw new HBaseSQLException(s"$statement: index '$indexName' was dropped or replaced while it was built")
        )
        now.withGlobalIndex(claimed.copy(state = GlobalIndexState.Ready, builtRows = Some(rows)))
      }
    } catch {
      case e: Throwable =>
        try withdraw(catalog, table, index, tableMade, statement)
        catch { case NonFatal(undo) => e.addSuppressed(undo) }
        throw e
    }
    Seq.empty
  }

  private def ours(now: GlobalIndexDef, claimed: GlobalIndexDef, nowTable: HBaseTableDef, table: HBaseTableDef) =
    now.columns == claimed.columns && now.covered == claimed.covered && now.indexTable == claimed.indexTable &&
      nowTable.hbaseTable == table.hbaseTable

  /** Undoes this statement's claim: only ours, never an index of that name another session made since. */
  private def withdraw(
      catalog: TableDefinitionStore,
      table: HBaseTableDef,
      index: GlobalIndexDef,
      tableMade: Boolean,
      statement: String
  ): Unit = {
    var withdrawn = false
    try RangeIndexes.update(catalog, table.name, statement) { now =>
        withdrawn = now.globalIndex(indexName).exists(ours(_, index, now, table))
        if (withdrawn) now.withoutGlobalIndex(indexName) else now
      }
    catch { case _: HBaseSQLException => } // the table is gone: DROP TABLE stopped and deleted what it had
    if (withdrawn) IndexMaintenance.sync(catalog, table.hbaseTable, statement)
    if (withdrawn && tableMade) GlobalIndexes.deleteTable(catalog, index)
  }
}
