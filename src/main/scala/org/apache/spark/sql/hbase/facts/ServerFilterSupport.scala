// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import java.io.IOException

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Connection, Scan}
import org.apache.hadoop.hbase.filter.Filter

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.Causes
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planner.RegionInfo
import org.apache.spark.sql.hbase.server.{KeyBox, Operand, ServerJar, SkipScanFilter}

/**
 * Whether region servers can run the server jar's filter, and in which wire version, one region
 * server at a time: the jar is on a server's classpath or not, whatever the table. A server is
 * probed with a scan of one of its regions that matches nothing, in each version this client
 * writes, newest first, and its answer is kept for `spark.sql.hbase.partition.expiration` seconds
 * under its name, start code included, so that a restarted server is probed again. Only a
 * refusal of the jar's bytes ([[WireRefusal]]) says a server lacks it: a probe that fails or
 * times out (the server is down, slow, or the region moving) says nothing and is not kept, and
 * the server's regions are read through the jar, which the read falls back from if refused.
 */
object ServerFilterSupport extends Logging {

  /**
   * The newest wire version in which each region server holding one of `regions` runs the filter
   * (by [[RegionInfo.serverName]]), or None for one that refused it; a server without an answer
   * (a region in transition, a failed probe) is left out.
   */
  def versions(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      regions: Seq[RegionInfo],
      maxAgeSeconds: Long
  ): Map[String, Option[Int]] = {
    val byServer = regions.filter(_.startCode.isDefined).groupBy(_.serverName)
    val known = byServer.keys.flatMap { server =>
      FactsCache.cached(FactsCache.FilterVersion(cluster, server), maxAgeSeconds * 1000).map(server -> _)
    }.toMap
    val probed = byServer.collect {
      case (server, regions) if !known.contains(server) =>
        server -> probeServer(cluster, table, regions.head)
    }.collect { case (server, Some(answer)) => server -> answer }
    (known ++ probed).map { case (server, answer) => server -> answer.toOption }
  }

  /** The answer of the server holding `region`, kept; None when the probe failed or the region has moved. */
  private def probeServer(cluster: HBaseClusterConf, table: HBaseTableDef, region: RegionInfo)
      : Option[Either[String, Int]] = HBaseConnections.withConnection(cluster) { connection =>
    val name = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)
    def from(version: Int): Either[String, Int] =
      refusal(connection, name, region, matchingNothing(table, version)) match {
        case None => Right(version)
        case Some(e) if version > ServerJar.OLDEST_WIRE_VERSION && WireRefusal.ofVersion(e) => from(version - 1)
        case Some(e) => Left(Causes.rootMessage(e))
      }
    try {
      val answer = from(ServerJar.WIRE_VERSION)
      // The answer is of the server that holds the region now (the probe found it): kept under its name.
      val locator = connection.getRegionLocator(name)
      val holder =
        try locator.getRegionLocation(region.startKey).getServerName
        finally locator.close()
      val holderName = RegionInfo.serverName(holder.getHostname, holder.getPort, holder.getStartCode)
      FactsCache.put(FactsCache.FilterVersion(cluster, holderName), answer)
      answer.left.foreach { reason =>
        logWarning(
          s"HBase region server $holder cannot run ${classOf[SkipScanFilter].getSimpleName} ($reason); regions of " +
            s"${table.hbaseTable} there are read with HBase's own filters and filtered in Spark. See 'Deploying the " +
            "server jar' in docs/deployment.md."
        )
      }
      Some(answer).filter(_ => holderName == region.serverName)
    } catch {
      case e: IOException =>
        logWarning(
          s"HBase table ${table.hbaseTable}: probing the server jar on ${region.server} failed " +
            s"(${Causes.rootMessage(e)}); its regions are read through the server jar, and without it if refused."
        )
        None
    }
  }

  /** None when the table's region servers ran `filter`; otherwise why they could not. */
  def probe(cluster: HBaseClusterConf, table: HBaseTableName, filter: Filter): Option[String] =
    HBaseConnections.withConnection(cluster) { connection =>
      val all = RegionInfo(Array.emptyByteArray, Array.emptyByteArray, None)
      refusal(connection, TableName.valueOf(table.namespace, table.name), all, filter).map(Causes.rootMessage)
    }

  /** None when the server holding `region` ran `filter` over it; the refusal otherwise. Any other failure is thrown. */
  private def refusal(connection: Connection, name: TableName, region: RegionInfo, filter: Filter)
      : Option[Throwable] = {
    val htable = connection.getTable(name)
    try {
      val scan = new Scan().withStartRow(region.startKey).withStopRow(region.endKey).setFilter(filter)
      val scanner = htable.getScanner(scan.setLimit(1).setCaching(1))
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
