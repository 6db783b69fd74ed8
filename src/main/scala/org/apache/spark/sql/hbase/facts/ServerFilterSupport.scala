// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import java.io.IOException

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan
import org.apache.hadoop.hbase.filter.Filter

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.Causes
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.{KeyBox, Operand, ServerJar, SkipScanFilter}

/**
 * Whether a table's region servers can run the server jar's filter, and in which wire version.
 * It is probed once per table (again after `spark.sql.hbase.partition.expiration`) with a scan
 * that matches nothing, in each version this client writes, newest first; without the jar, scans
 * fall back to HBase's own filters and Spark, with a one-line warning.
 */
object ServerFilterSupport extends Logging {

  /** The newest wire version in which the table's region servers run the filter, or None when they cannot. */
  def version(cluster: HBaseClusterConf, table: HBaseTableDef, maxAgeSeconds: Long): Option[Int] =
    FactsCache.get(FactsCache.FilterVersion(cluster, table.hbaseTable), maxAgeSeconds * 1000) {
      val version = newestRun(cluster, table)
      version.left.foreach { reason =>
        logWarning(
          s"HBase table ${table.hbaseTable}: region servers cannot run ${classOf[SkipScanFilter].getSimpleName} " +
            s"($reason); reading with MultiRowRangeFilter and filtering in Spark. See 'Deploying the server jar' in docs/deployment.md."
        )
      }
      version
    }.toOption

  /** The newest version the region servers ran, or why they ran none. */
  private def newestRun(cluster: HBaseClusterConf, table: HBaseTableDef): Either[String, Int] = {
    def from(version: Int): Either[String, Int] =
      refusal(cluster, table.hbaseTable, matchingNothing(table, version)) match {
        case None => Right(version)
        case Some(e) if version > ServerJar.OLDEST_WIRE_VERSION && WireRefusal.ofVersion(e) => from(version - 1)
        case Some(e) => Left(Causes.rootMessage(e))
      }
    from(ServerJar.WIRE_VERSION)
  }

  /** None when the table's region servers ran `filter`; otherwise why they could not. */
  def probe(cluster: HBaseClusterConf, table: HBaseTableName, filter: Filter): Option[String] =
    refusal(cluster, table, filter).map(Causes.rootMessage)

  private def refusal(cluster: HBaseClusterConf, table: HBaseTableName, filter: Filter): Option[Throwable] =
    HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(TableName.valueOf(table.namespace, table.name))
      try {
        val scanner = htable.getScanner(new Scan().setFilter(filter).setLimit(1).setCaching(1))
        try { scanner.next(); None }
        finally scanner.close()
      } catch {
        case e: IOException if WireRefusal.of(e) => Some(e)
      } finally htable.close()
    }

  /** A filter of no key boxes: the region server loads it and stops at the first row. */
  private def matchingNothing(table: HBaseTableDef, version: Int): Filter =
    new SkipScanFilter(
      KeyCodec.forTable(table).sliceLayout,
      Array.empty[KeyBox],
      Array.empty[Operand],
      null,
      null,
      null,
      version
    )
}
