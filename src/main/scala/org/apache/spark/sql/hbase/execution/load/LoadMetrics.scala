// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import org.apache.spark.SparkContext
import org.apache.spark.sql.execution.SQLExecution
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * What a bulk load counts, as the SQL metrics of its command: the Spark UI's SQL tab shows them,
 * and so does the command's node in the executed plan.
 *
 * The work is counted by the tasks, so the SQL tab shows it grow as they finish: rows read (good
 * and bad), bad rows, HFiles and their bytes, and the time spent writing them and, with PARALLEL,
 * loading them. Input that turns out not to be in key order is read and written a second time
 * (see [[BulkLoad]]), and this work counts both times. The outcome is set by the driver at the
 * end: rows loaded, rows skipped, regions loaded and, without PARALLEL, the time loading.
 */
final case class LoadMetrics(
    rowsRead: SQLMetric,
    badRows: SQLMetric,
    hfilesWritten: SQLMetric,
    bytesWritten: SQLMetric,
    writeTime: SQLMetric,
    loadTime: SQLMetric,
    rowsLoaded: SQLMetric,
    rowsSkipped: SQLMetric,
    regionsLoaded: SQLMetric
) {

  /**
   * Sets the outcome and posts what the driver measured: the SQL tab hears of driver-side values
   * only when told. The load time is the driver's only when the driver loaded the files.
   */
  def reportOutcome(sc: SparkContext, loaded: Long, skipped: Long, regions: Int, loadedByDriver: Boolean): Unit = {
    rowsLoaded.set(loaded)
    rowsSkipped.set(skipped)
    regionsLoaded.set(regions.toLong)
    val measuredHere = Seq(rowsLoaded, rowsSkipped, regionsLoaded) ++ (if (loadedByDriver) Seq(loadTime) else Nil)
    SQLMetrics.postDriverMetricUpdates(sc, sc.getLocalProperty(SQLExecution.EXECUTION_ID_KEY), measuredHere)
  }
}

object LoadMetrics {

  /** The metrics by name, as a command's `metrics` gives them to the plan. */
  def create(sc: SparkContext): Map[String, SQLMetric] = Map(
    "rowsRead" -> SQLMetrics.createMetric(sc, "rows read"),
    "badRows" -> SQLMetrics.createMetric(sc, "bad rows read"),
    "hfilesWritten" -> SQLMetrics.createMetric(sc, "HFiles written"),
    "bytesWritten" -> SQLMetrics.createSizeMetric(sc, "HFile bytes written"),
    "writeTime" -> SQLMetrics.createNanoTimingMetric(sc, "time writing HFiles"),
    "loadTime" -> SQLMetrics.createNanoTimingMetric(sc, "time loading HFiles into HBase"),
    "rowsLoaded" -> SQLMetrics.createMetric(sc, "rows loaded"),
    "rowsSkipped" -> SQLMetrics.createMetric(sc, "bad rows skipped"),
    "regionsLoaded" -> SQLMetrics.createMetric(sc, "regions loaded into")
  )

  def of(metrics: Map[String, SQLMetric]): LoadMetrics = LoadMetrics(
    metrics("rowsRead"),
    metrics("badRows"),
    metrics("hfilesWritten"),
    metrics("bytesWritten"),
    metrics("writeTime"),
    metrics("loadTime"),
    metrics("rowsLoaded"),
    metrics("rowsSkipped"),
    metrics("regionsLoaded")
  )

  /** Metrics no plan shows: for a load with no command of its own (a DataFrame's bulk load), or HFiles written outside one. */
  def unshown(sc: SparkContext): LoadMetrics = of(create(sc))
}
