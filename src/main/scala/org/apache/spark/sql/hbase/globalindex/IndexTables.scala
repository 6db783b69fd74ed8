// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.io.IOException

import org.apache.hadoop.hbase.{TableExistsException, TableNotFoundException}
import org.apache.hadoop.hbase.client.{Admin, ColumnFamilyDescriptorBuilder, TableDescriptorBuilder}

import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.server.ServerJar

/** The HBase table that holds a global index. */
object IndexTables {

  /**
   * Makes the index's HBase table, split at `splits`, with compactions off until its build ends:
   * a build writes rows older than the deletes concurrent writes leave, and a major compaction
   * would drop those deletes before the build's rows arrive. Fails when the table exists.
   */
  def create(
      admin: Admin,
      table: HBaseTableDef,
      index: GlobalIndexDef,
      splits: Seq[Array[Byte]],
      statement: String
  ): Unit = {
    val descriptor = TableDescriptorBuilder.newBuilder(index.indexTable.hbase).setCompactionEnabled(false)
    val data =
      try Some(admin.getDescriptor(table.hbaseTable.hbase))
      catch { case _: TableNotFoundException => None }
    IndexSpecs.families(table, index).foreach { family =>
      // A covered family is stored as the data table stores it (compression, encoding, blooms).
      val like = data.flatMap(d => Option(d.getColumnFamily(Utf8.bytes(family))))
      descriptor.setColumnFamily(like.fold(ColumnFamilyDescriptorBuilder.of(family))(f =>
        ColumnFamilyDescriptorBuilder.newBuilder(f).setMaxVersions(1).setMinVersions(0)
          .setTimeToLive(org.apache.hadoop.hbase.HConstants.FOREVER).build()
      ))
    }
    // Its region servers aggregate its rows for a covering read where they do the data table's.
    if (data.exists(_.hasCoprocessor(ServerJar.AGGREGATE_OBSERVER)))
      descriptor.setCoprocessor(ServerJar.AGGREGATE_OBSERVER)
    try {
      if (splits.isEmpty) admin.createTable(descriptor.build())
      else admin.createTable(descriptor.build(), splits.toArray)
    } catch {
      case _: TableExistsException => throw new HBaseSQLException(
          s"$statement: HBase table '${index.indexTable}', which would hold the index, already exists; " +
            "choose another index name, or delete that table if nothing uses it"
        )
      case e: IOException => throw new HBaseSQLException(
          s"$statement: cannot create HBase table '${index.indexTable}' for the index: ${Causes.rootMessage(e)}",
          Some(e)
        )
    }
  }

  /** Turns compactions back on once the build's rows are all written. */
  def buildEnded(admin: Admin, indexTable: HBaseTableName): Unit = {
    val current = admin.getDescriptor(indexTable.hbase)
    if (!current.isCompactionEnabled) {
      admin.modifyTable(TableDescriptorBuilder.newBuilder(current).setCompactionEnabled(true).build())
    }
  }

  /** Deletes the index's HBase table, if it exists. */
  def delete(admin: Admin, indexTable: HBaseTableName): Unit = {
    val name = indexTable.hbase
    if (admin.tableExists(name)) {
      try {
        if (admin.isTableEnabled(name)) admin.disableTable(name)
        admin.deleteTable(name)
      } catch { case _: TableNotFoundException => } // another session deleted it meanwhile
    }
  }
}
