package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.Dataset
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper

/**
 * The HBase scan metrics of a Dataset's plan, summed over its HBase scans, once an action has run
 * on that Dataset. Adaptive query execution's stages and subqueries are looked into.
 */
object ScanMetrics extends AdaptiveSparkPlanHelper {
  val Names: Seq[String] = Seq("regionsTotal", "regionsScanned", "keyRanges", "chunksSkipped", "rowsRead", "rowsScanned", "gets")

  def of(dataset: Dataset[_]): Map[String, Long] = {
    val scans = collectWithSubqueries(dataset.queryExecution.executedPlan) {
      case s: HBaseSQLTableScan => s
      case s: HBaseAggregateScan => s
    }
    Names.map(name => name -> scans.map(_.metrics(name).value).sum).toMap
  }

  /** For Python: the same as a java.util.Map. */
  def asJava(dataset: Dataset[_]): java.util.Map[String, java.lang.Long] =
    of(dataset).map { case (k, v) => k -> java.lang.Long.valueOf(v) }.asJava
}
