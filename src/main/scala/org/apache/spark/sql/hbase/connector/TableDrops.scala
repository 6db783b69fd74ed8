// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import org.apache.hadoop.hbase.TableName

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, ReadableEntry, TableDefinitionStore, UnreadableEntry}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.facts.FactsCache
import org.apache.spark.sql.hbase.globalindex.GlobalIndexes
import org.apache.spark.sql.hbase.execution.write.SinkCommits

/** What dropping an HBase table does, for DROP TABLE and for Spark's catalog API alike. */
object TableDrops extends Logging {

  /**
   * Drops the mapping of `name`, its range indexes, its global indexes (their HBase tables too) and the streaming sink's commit records of it;
   * false when `catalog` has no such table.
   * A broken entry is dropped too, since that is how a user gets rid of it; the statistics of its
   * indexes, if it had any, stay behind unread, as a new build never reads an old generation.
   *
   * With `purge`, the HBase table is deleted as well, with all its data, but only one that
   * CREATE TABLE made and no other table maps: PURGE never deletes data other tools wrote into a
   * table that existed before, nor a table another mapping reads. Otherwise nothing is dropped.
   */
  def drop(session: SparkSession, catalog: TableDefinitionStore, name: String, purge: Boolean = false): Boolean = {
    val statement = s"DROP TABLE $name PURGE"
    if (purge) catalog.entry(name).foreach {
      case ReadableEntry(table) => requirePurgeable(catalog, table, statement)
      case _: UnreadableEntry =>
        throw new HBaseSQLException(s"$statement: the catalog entry of '$name' cannot be read, so which HBase table " +
          s"it maps is not known; DROP TABLE $name removes the entry and keeps HBase's data")
    }
    catalog.drop(name) match {
      case Some(ReadableEntry(table)) =>
        // The indexes of the definition removed, not of one read before: another session may have added one.
        RangeIndexes.forgetAll(session, catalog, table)
        GlobalIndexes.forget(catalog, table, table.globalIndexes, s"DROP TABLE $name")
        new SinkCommits(catalog.cluster, catalog.metaTable.getNameAsString).forgetTable(table.name)
        // As removed: its HBase table cannot have changed, nor who made it.
        if (purge && table.ownsHBaseTable) deleteHBaseTable(catalog, table, statement)
        true
      case Some(_: UnreadableEntry) => true
      case None => false
    }
  }

  private def requirePurgeable(catalog: TableDefinitionStore, table: HBaseTableDef, statement: String): Unit = {
    if (!table.ownsHBaseTable) {
      throw new HBaseSQLException(s"$statement: HBase table '${table.hbaseTable}' existed before CREATE TABLE " +
        s"${table.name} mapped it, so PURGE does not delete it; DROP TABLE ${table.name} removes the mapping and " +
        "keeps the HBase table (delete it with the HBase shell if you mean to)")
    }
    // None when some entry cannot be read: it might map this HBase table.
    val mappings = catalog.over(table.hbaseTable).getOrElse(throw new HBaseSQLException(
      s"$statement: some catalog entries cannot be read, so whether another table maps HBase table " +
        s"'${table.hbaseTable}' is not known; drop the broken entries first (SHOW TABLES lists them)"
    ))
    val others = mappings.filterNot(_.name.equalsIgnoreCase(table.name))
    if (others.nonEmpty) {
      throw new HBaseSQLException(s"$statement: HBase table '${table.hbaseTable}' is mapped by " +
        s"${others.map(o => s"'${o.name}'").mkString(", ")} too; drop ${if (others.size == 1) "it" else "them"} first")
    }
  }

  private def deleteHBaseTable(catalog: TableDefinitionStore, table: HBaseTableDef, statement: String): Unit =
    try HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try {
          val name = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)
          if (admin.tableExists(name)) {
            if (admin.isTableEnabled(name)) admin.disableTable(name)
            admin.deleteTable(name)
          }
        } finally {
          admin.close()
          // A table made again under this name is another table: what HBase said of this one is void,
          // and so are the slots its packed rows were read in.
          FactsCache.forgetTable(catalog.cluster, table.hbaseTable)
          try catalog.forgetPackedSlots(table.hbaseTable)
          catch {
            // A stale record only proposes slots to a later packed mapping over a table of that name.
            case e: java.io.IOException =>
              logWarning(s"$statement: the catalog's record of the packed slots of HBase table " +
                s"'${table.hbaseTable}' was not deleted: ${Causes.rootMessage(e)}")
          }
        }
      }
    catch {
      case e: java.io.IOException =>
        throw new HBaseSQLException(
          s"$statement: the mapping is dropped, but deleting HBase table " +
            s"'${table.hbaseTable}' failed: ${Causes.rootMessage(e)}; delete it with the HBase shell",
          Some(e)
        )
    }
}
