// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import java.io.IOException

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{HConstants, TableName, TableNotFoundException}
import org.apache.hadoop.hbase.client.{Admin, CoprocessorDescriptorBuilder, TableDescriptor, TableDescriptorBuilder}

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.server.{ServerJar, WriteMark}

/**
 * The write-marking coprocessor on an indexed HBase table. A range index is trusted only while
 * the table's descriptor carries it, pointing at the range index table the planner reads: then
 * every region of the table runs it (a region server that cannot load a table's coprocessor
 * aborts, unless `hbase.coprocessor.abortonerror` is turned off) and every write is marked.
 */
object WriteGuard {

  /** Whether every change to the table's rows is marked: the guard is on and no cell expires by itself. */
  def isInstalled(descriptor: TableDescriptor, indexTable: TableName): Boolean =
    expiringFamily(descriptor).isEmpty && descriptor.getCoprocessorDescriptors.asScala.exists { c =>
      c.getClassName == ServerJar.WRITE_MARK_OBSERVER &&
      c.getProperties.asScala.get(WriteMark.INDEX_TABLE_PROPERTY).contains(indexTable.getNameAsString)
    }

  /** A family whose cells expire (a TTL): they vanish without a write, which no mark can follow. */
  def expiringFamily(descriptor: TableDescriptor): Option[String] =
    descriptor.getColumnFamilies.find(_.getTimeToLive != HConstants.FOREVER).map(_.getNameAsString)

  /** Puts the coprocessor on the table, with these settings; HBase reopens its regions. */
  def install(
      admin: Admin,
      table: HBaseTableName,
      indexTable: TableName,
      leaseMillis: Long,
      statement: String
  ): Unit = {
    val name = TableName.valueOf(table.namespace, table.name)
    val current =
      try admin.getDescriptor(name)
      catch {
        // A table is in the catalog a moment before CREATE TABLE makes its HBase table.
        case e: TableNotFoundException =>
          throw new HBaseSQLException(
            s"$statement: HBase table '$table' does not exist; if CREATE TABLE is making it now, run this again",
            Some(e)
          )
      }
    expiringFamily(current).foreach { family =>
      throw new HBaseSQLException(s"$statement: column family '$family' of HBase table '$table' has a TTL; its cells " +
        "vanish without a write, so no range index can follow them")
    }
    val wanted = CoprocessorDescriptorBuilder.newBuilder(ServerJar.WRITE_MARK_OBSERVER)
      .setProperty(WriteMark.INDEX_TABLE_PROPERTY, indexTable.getNameAsString)
      .setProperty(WriteMark.LEASE_PROPERTY, leaseMillis.toString)
      .build()
    val same = current.getCoprocessorDescriptors.asScala.exists(c =>
      c.getClassName == wanted.getClassName && c.getProperties == wanted.getProperties
    )
    if (!same) {
      val builder = TableDescriptorBuilder.newBuilder(current)
      if (current.hasCoprocessor(ServerJar.WRITE_MARK_OBSERVER))
        builder.removeCoprocessor(ServerJar.WRITE_MARK_OBSERVER)
      try admin.modifyTable(builder.setCoprocessor(wanted).build())
      catch {
        case e: IOException => throw new HBaseSQLException(
            s"$statement: cannot install ${ServerJar.WRITE_MARK_OBSERVER} on HBase table '$table', which keeps the index " +
              s"correct under every writer: ${e.getMessage.linesIterator.next()}. The server jar must be on the region " +
              "servers' and the master's classpath; see 'Deploying the server jar' in docs/deployment.md.",
            Some(e)
          )
      }
    }
  }

  def remove(admin: Admin, table: HBaseTableName): Unit = {
    val name = TableName.valueOf(table.namespace, table.name)
    // A table not made yet carries no guard.
    val current =
      try Some(admin.getDescriptor(name))
      catch { case _: TableNotFoundException => None }
    current.filter(_.hasCoprocessor(ServerJar.WRITE_MARK_OBSERVER)).foreach { current =>
      admin.modifyTable(
        TableDescriptorBuilder.newBuilder(current).removeCoprocessor(ServerJar.WRITE_MARK_OBSERVER).build()
      )
    }
  }
}
