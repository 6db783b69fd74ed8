// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef, TableDefinitionStore}

/** What DROP INDEX, DROP TABLE and a failed CREATE INDEX do to a global index's HBase side. */
object GlobalIndexes {

  def deleteTable(catalog: TableDefinitionStore, index: GlobalIndexDef): Unit =
    HBaseConnections.withConnection(catalog.cluster) { connection =>
      val admin = connection.getAdmin
      try IndexTables.delete(admin, index.indexTable)
      finally admin.close()
    }

  /** After `removed` left the catalog: the region servers stop maintaining them, and their tables go. */
  def forget(catalog: TableDefinitionStore, table: HBaseTableDef, removed: Seq[GlobalIndexDef], statement: String)
      : Unit = if (removed.nonEmpty) {
    IndexMaintenance.sync(catalog, table.hbaseTable, statement)
    removed.foreach(deleteTable(catalog, _))
  }
}
