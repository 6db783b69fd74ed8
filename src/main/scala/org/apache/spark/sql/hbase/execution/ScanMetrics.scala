// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.spark.SparkContext
import org.apache.spark.sql.Dataset
import org.apache.spark.sql.execution.CommandResultExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.command.{ExecutedCommandExec, LeafRunnableCommand}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}

/**
 * The HBase scan metrics of a Dataset's plan, summed over its HBase scans, once an action has run
 * on that Dataset. Adaptive query execution's stages and subqueries are looked into.
 */
object ScanMetrics extends AdaptiveSparkPlanHelper {
  val Names: Seq[String] =
    Seq(
      "regionsTotal",
      "regionsScanned",
      "keyRanges",
      "chunksSkipped",
      "rowsRead",
      "rowsScanned",
      "gets",
      "badRowKeys",
      "memoryFlushes",
      "indexRowsRead",
      "untrustedRegions",
      "rowsInIndexOrder",
      "indexRowsAggregated"
    )

  def of(dataset: Dataset[_]): Map[String, Long] = {
    val plan = dataset.queryExecution.executedPlan match {
      case result: CommandResultExec => result.commandPhysicalPlan // a statement run when the Dataset was made
      case other => other
    }
    val measured = collectWithSubqueries(plan) {
      case s: ScansHBase => s.metrics
      case ExecutedCommandExec(c: ReadsHBaseRows) => c.metrics
    }
    Names.map(name => name -> measured.map(_(name).value).sum).toMap
  }

  /** The metrics of a command that reads rows with a query of its own. */
  def forCommand(): Map[String, SQLMetric] = {
    val context = SparkContext.getOrCreate()
    Names.map(name => name -> SQLMetrics.createMetric(context, name)).toMap
  }

  /** For Python: the same as a java.util.Map. */
  def asJava(dataset: Dataset[_]): java.util.Map[String, java.lang.Long] =
    of(dataset).map { case (k, v) => k -> java.lang.Long.valueOf(v) }.asJava
}

/**
 * A command that finds the rows it changes with a query of its own (DELETE, UPDATE): that
 * query's HBase scan metrics become the command's, once it has run.
 */
trait ReadsHBaseRows extends LeafRunnableCommand {
  override lazy val metrics: Map[String, SQLMetric] = ScanMetrics.forCommand()

  protected def recordScanMetrics(query: Dataset[_]): Unit =
    ScanMetrics.of(query).foreach { case (name, value) => metrics(name).set(value) }
}

/** A physical node that reads HBase rows: its metrics are what [[ScanMetrics]] sums. */
trait ScansHBase extends org.apache.spark.sql.execution.SparkPlan
