// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.planner.TableScanPlan

/**
 * What reading regions counts: rows HBase returned to Spark, rows the region servers looked at
 * (HBase's own scan metrics, or the aggregation coprocessor's count), Gets, rows left out
 * because their keys are not keys of the table (see `spark.sql.hbase.read.badRowKeys`), and the
 * batches of partial groups a region server sent early because its memory for them ran out.
 */
final case class ReadMetrics(
    rowsRead: SQLMetric,
    rowsScanned: SQLMetric,
    gets: SQLMetric,
    badRowKeys: SQLMetric,
    memoryFlushes: SQLMetric
) {
  def add(other: ReadMetrics): Unit = {
    rowsRead += other.rowsRead.value
    rowsScanned += other.rowsScanned.value
    gets += other.gets.value
    badRowKeys += other.badRowKeys.value
    memoryFlushes += other.memoryFlushes.value
  }
}

object ReadMetrics {

  /** The SQL metrics every HBase scan node reports, by name, as the Spark UI's SQL tab shows them. */
  def create(sc: SparkContext, rowsRead: String): Map[String, SQLMetric] = Map(
    "regionsTotal" -> SQLMetrics.createMetric(sc, "regions in the table"),
    "regionsScanned" -> SQLMetrics.createMetric(sc, "regions read"),
    "keyRanges" -> SQLMetrics.createMetric(sc, "row key ranges read"),
    "chunksSkipped" -> SQLMetrics.createMetric(sc, "range index chunks skipped"),
    "rowsRead" -> SQLMetrics.createMetric(sc, rowsRead),
    "rowsScanned" -> SQLMetrics.createMetric(sc, "rows the region servers looked at"),
    "gets" -> SQLMetrics.createMetric(sc, "Gets"),
    "badRowKeys" -> SQLMetrics.createMetric(sc, "rows skipped for bad row keys"),
    "memoryFlushes" -> SQLMetrics.createMetric(sc, "partial groups sent early for region server memory"),
    "indexRowsRead" -> SQLMetrics.createMetric(sc, "global index rows read"),
    "indexRowsAggregated" ->
      SQLMetrics.createMetric(sc, "global index rows its region servers aggregated in place of their data rows"),
    "untrustedRegions" -> SQLMetrics.createMetric(sc, "regions read whole where a bulk load left the global index"),
    "rowsInIndexOrder" -> SQLMetrics.createMetric(sc, "rows an ORDER BY ... LIMIT read in a global index's order")
  )

  def of(metrics: Map[String, SQLMetric]): ReadMetrics =
    ReadMetrics(
      metrics("rowsRead"),
      metrics("rowsScanned"),
      metrics("gets"),
      metrics("badRowKeys"),
      metrics("memoryFlushes")
    )

  /** Sets what the plan decided (regions, key ranges, chunks skipped), as metrics of the running query. */
  def reportPlan(sc: SparkContext, metrics: Map[String, SQLMetric], plan: TableScanPlan): Unit = {
    metrics("regionsTotal").set(plan.regionsTotal)
    metrics("regionsScanned").set(plan.regions.size)
    metrics("keyRanges").set(plan.rowRanges)
    metrics("chunksSkipped").set(plan.chunksSkipped)
    postDriverMetrics(sc, metrics, Seq("regionsTotal", "regionsScanned", "keyRanges", "chunksSkipped"))
  }

  /** Sets what a global index read at run time counted, as metrics of the running query. */
  def reportIndexRead(sc: SparkContext, metrics: Map[String, SQLMetric], read: IndexKeysRead.Outcome): Unit =
    reportIndexRead(sc, metrics, read.indexRowsRead, read.answer.fold(0)(_.untrusted.size))

  /** Sets what an aggregate in a global index's region servers counted ([[IndexAggregateRead]]). */
  def reportIndexAggregate(sc: SparkContext, metrics: Map[String, SQLMetric], read: IndexAggregateRead.Answer): Unit = {
    metrics("indexRowsAggregated").set(read.indexRowsRead - read.notVouched)
    reportIndexRead(sc, metrics, read.indexRowsRead, 0)
    postDriverMetrics(sc, metrics, Seq("indexRowsAggregated"))
  }

  /** Sets what a read in a global index's order counted: none of its rows when the index could not answer. */
  def reportIndexOrder(sc: SparkContext, metrics: Map[String, SQLMetric], read: IndexOrderRead.Outcome): Unit = {
    metrics("rowsInIndexOrder").set(read.rows.fold(0L)(_.length.toLong))
    reportIndexRead(sc, metrics, read.indexRowsRead, 0)
    postDriverMetrics(sc, metrics, Seq("rowsInIndexOrder"))
  }

  def reportIndexRead(sc: SparkContext, metrics: Map[String, SQLMetric], indexRows: Long, untrusted: Int): Unit = {
    metrics("indexRowsRead").set(indexRows)
    metrics("untrustedRegions").set(untrusted)
    postDriverMetrics(sc, metrics, Seq("indexRowsRead", "untrustedRegions"))
  }

  /** Metrics counted on the driver reach the SQL tab only when posted. */
  def postDriverMetrics(sc: SparkContext, metrics: Map[String, SQLMetric], names: Seq[String]): Unit =
    SQLMetrics.postDriverMetricUpdates(sc, sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), names.map(metrics))

  /** Fresh metrics for one region read on the driver, added up afterwards: metrics are not thread-safe. */
  def local(): ReadMetrics =
    ReadMetrics(
      new SQLMetric("sum"),
      new SQLMetric("sum"),
      new SQLMetric("sum"),
      new SQLMetric("sum"),
      new SQLMetric("sum")
    )
}
