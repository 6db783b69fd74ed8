// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableDefinitionStore}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.rangeindex.{RangeIndexStore, WriteGuard}

/** The range indexes of a table as statements change them: its definition, their statistics store, the write guard. */
private[hbase] object RangeIndexes {
  def table(catalog: TableDefinitionStore, name: String, statement: String): HBaseTableDef =
    table(catalog, HBaseTableIdent(None, name), statement)

  def table(catalog: TableDefinitionStore, ident: HBaseTableIdent, statement: String): HBaseTableDef =
    catalog.get(ident.name).getOrElse(throw new HBaseSQLException(s"$statement: HBase table '$ident' does not exist"))

  /** The range index statistics of the tables of `catalog`, kept in its cluster. */
  def store(session: SparkSession, catalog: TableDefinitionStore): RangeIndexStore =
    RangeIndexStore.of(catalog.cluster, session.sessionState.conf.getConf(HBaseSQLConf.IndexTable))

  /** Forgets every range index of a dropped table. */
  def forgetAll(session: SparkSession, catalog: TableDefinitionStore, table: HBaseTableDef): Unit =
    if (table.indexes.nonEmpty) {
      val statistics = store(session, catalog)
      // The published builds only: a build still running removes its own chunks when it cannot
      // publish, and a table of the same name created since may have built an index of the same name.
      table.indexes.foreach(index => statistics.dropChunks(table, index)(g => index.generation.contains(g)))
      releaseGuardIfUnused(catalog, table)
    }

  /** Takes the write guard off the HBase table once no SQL table over it has a range index. */
  def releaseGuardIfUnused(catalog: TableDefinitionStore, table: HBaseTableDef): Unit =
    if (catalog.over(table.hbaseTable).exists(_.forall(_.indexes.isEmpty))) {
      HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try WriteGuard.remove(admin, table.hbaseTable)
        finally admin.close()
      }
    }

  /** Swaps the table's definition for `change` of it, retrying when another session changed it first. */
  def update(
      catalog: TableDefinitionStore,
      name: String,
      statement: String
  )(change: HBaseTableDef => HBaseTableDef): HBaseTableDef = {
    def attempt(n: Int): HBaseTableDef = {
      val current = table(catalog, name, statement)
      val updated = change(current)
      if (catalog.replace(current, updated)) updated
      else if (n < 5) attempt(n + 1)
      else throw new HBaseSQLException(s"$statement: table '$name' keeps changing in other sessions; run it again")
    }
    attempt(0)
  }
}
