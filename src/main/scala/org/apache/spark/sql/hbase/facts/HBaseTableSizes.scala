// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import java.util.concurrent.TimeoutException

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.jdk.CollectionConverters._
import scala.util.control.NonFatal

import org.apache.hadoop.hbase.{ServerName, Size, TableName}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.connection.{DaemonThreads, HBaseClusterConf, HBaseConnections}

/**
 * How many bytes a table holds, for Spark's optimizer: its regions' store files and memstores,
 * as the region servers report them. They report whole megabytes, rounded down, so each region
 * counts 2 MB more: the estimate is never below the truth, and a small table is still small.
 * Sizes are cached briefly, since outside writers change them too; our writes forget them. A
 * size older than that is still given to the statement that finds it so, while it is looked up
 * again in the background for the next: a statement after a pause does not wait for the region
 * servers to report an estimate.
 */
object HBaseTableSizes extends Logging {
  private val RoundingPerRegion = BigInt(2L * 1024 * 1024)
  private val MaxAgeSeconds = 10L

  /**
   * The table's size as last looked up; None when HBase did not say. One older than
   * [[MaxAgeSeconds]] is looked up again, in the background; a table never looked up (or whose
   * size was forgotten) is looked up now.
   */
  def cached(cluster: HBaseClusterConf, table: HBaseTableName): Option[BigInt] = {
    val fact = FactsCache.Size(cluster, table)
    FactsCache.cached(fact, MaxAgeSeconds * 1000).getOrElse {
      FactsCache.cached(fact, Long.MaxValue) match {
        case Some(older) => refresh(fact); older
        case None => FactsCache.get(fact, MaxAgeSeconds * 1000)(bounded(of(cluster, table)))
      }
    }
  }

  private val refreshing = java.util.concurrent.ConcurrentHashMap.newKeySet[FactsCache.Size]()

  /** Looks the size up again in the background, once at a time per table. */
  private def refresh(fact: FactsCache.Size): Unit = if (refreshing.add(fact)) {
    Future {
      try FactsCache.put(fact, of(fact.cluster, fact.table))
      finally refreshing.remove(fact)
    }(lookups)
  }

  /**
   * A lookup that outlasts [[LookupTimeout]] (a region server down, the client retrying) leaves
   * the size unknown: a query waits for its plan no longer than that.
   */
  private def bounded(lookup: => Option[BigInt]): Option[BigInt] =
    try Await.result(Future(lookup)(lookups), LookupTimeout)
    catch {
      case _: TimeoutException =>
        logWarning(s"HBase took over $LookupTimeout to report a table's size; Spark's optimizer assumes a large one")
        None
    }

  private val LookupTimeout = 3.seconds

  private lazy val lookups: ExecutionContext = DaemonThreads.pool("hbase-table-size", 2)

  /** Our own writes change the size: the next plan looks it up again. */
  def forget(cluster: HBaseClusterConf, table: HBaseTableName): Unit =
    FactsCache.forget(FactsCache.Size(cluster, table))

  def of(cluster: HBaseClusterConf, table: HBaseTableName): Option[BigInt] =
    try {
      HBaseConnections.withConnection(cluster) { connection =>
        val name = TableName.valueOf(table.namespace, table.name)
        val locator = connection.getRegionLocator(name)
        val locations = try locator.getAllRegionLocations.asScala.toSeq
        finally locator.close()
        val servers: Seq[ServerName] = locations.flatMap(l => Option(l.getServerName)).distinct
        val admin = connection.getAdmin
        try {
          val regions = servers.flatMap(server => admin.getRegionMetrics(server, name).asScala)
          // A region in transition reports nothing: then the size is not known, rather than too small.
          if (regions.size < locations.size) None
          else Some(regions.map(r => bytes(r.getStoreFileSize) + bytes(r.getMemStoreSize) + RoundingPerRegion).sum)
        } finally admin.close()
      }
    } catch {
      case NonFatal(e) =>
        logWarning(s"No size for HBase table $table; Spark's optimizer assumes a large one", e)
        None
    }

  private def bytes(size: Size): BigInt = BigInt(math.ceil(size.get(Size.Unit.BYTE)).toLong)
}
