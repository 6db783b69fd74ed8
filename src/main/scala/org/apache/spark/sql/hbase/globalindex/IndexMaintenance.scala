// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.io.IOException

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableNotFoundException
import org.apache.hadoop.hbase.client.{CoprocessorDescriptorBuilder, TableDescriptorBuilder}

import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.metadata.{HBaseTableName, TableDefinitionStore}
import org.apache.spark.sql.hbase.server.{IndexMaintenanceObserver, IndexSpec, ServerJar}

/**
 * The region servers' side of the global indexes over one HBase table: `IndexMaintenanceObserver`
 * on the table, carrying the spec of every global index any definition over it has, building or
 * ready. Statements change the catalog first, then bring the table's observer in line with it.
 */
object IndexMaintenance {

  /** How long a region server waits for an index row's lock before it fails the write. */
  val LockWaitMillis = 30000L

  /**
   * Makes the observer on `hbaseTable` keep exactly the global indexes the catalog has over it,
   * removing it when there are none. Every session of the cluster does this under one lock per
   * HBase table, reading the catalog inside it, so that no session puts back a set another's
   * change made stale. HBase reopens the table's regions; once this returns, every write to the
   * table maintains those indexes.
   */
  def sync(catalog: TableDefinitionStore, hbaseTable: HBaseTableName, statement: String): Unit =
    catalog.locked(s"global-indexes:$hbaseTable", statement) {
      val specs = IndexSpecs.kept(catalog, hbaseTable).getOrElse(throw new HBaseSQLException(
        s"$statement: some catalog entries cannot be read, so which global indexes HBase table '$hbaseTable' " +
          "has is not known; drop the broken entries first (SHOW TABLES lists them)"
      ))
      HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try {
          val current =
            try Some(admin.getDescriptor(hbaseTable.hbase))
            catch { case _: TableNotFoundException => None }
          current match {
            case None if specs.isEmpty =>
            case None => throw new HBaseSQLException(s"$statement: HBase table '$hbaseTable' does not exist")
            case Some(descriptor) =>
              val installed = descriptor.getCoprocessorDescriptors.asScala
                .find(_.getClassName == ServerJar.INDEX_MAINTENANCE_OBSERVER)
              val builder = TableDescriptorBuilder.newBuilder(descriptor)
              installed.foreach(_ => builder.removeCoprocessor(ServerJar.INDEX_MAINTENANCE_OBSERVER))
              if (specs.isEmpty) {
                if (installed.isDefined) admin.modifyTable(builder.build())
              } else {
                val wanted = CoprocessorDescriptorBuilder.newBuilder(ServerJar.INDEX_MAINTENANCE_OBSERVER)
                  .setProperty(IndexSpec.PROPERTY, IndexSpec.toProperty(specs.asJava, IndexSpec.FIRST_VERSION))
                  .setProperty(IndexMaintenanceObserver.LOCK_WAIT_PROPERTY, LockWaitMillis.toString)
                  .build()
                if (!installed.exists(_.getProperties == wanted.getProperties)) {
                  admin.modifyTable(builder.setCoprocessor(wanted).build())
                }
              }
          }
        } catch {
          case e: IOException => throw new HBaseSQLException(
              s"$statement: cannot change ${ServerJar.INDEX_MAINTENANCE_OBSERVER} on HBase table '$hbaseTable', " +
                s"which keeps its global indexes: ${Causes.rootMessage(e)}. The server jar must be on the region " +
                "servers' and the master's classpath; see 'Deploying the server jar' in docs/deployment.md.",
              Some(e)
            )
        } finally admin.close()
      }
    }
}
