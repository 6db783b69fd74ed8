// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, UnsafeProjection}
import org.apache.spark.sql.execution.{LeafExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.{SQLMetric, SQLMetrics}
import org.apache.spark.sql.hbase.common.DescribedInExplain
import org.apache.spark.sql.hbase.execution.{ReadMetrics, ScansHBase}

/**
 * Reads a [[ChangeRead]], a region a partition ([[ChangesRDD]]). Besides the usual read metrics,
 * `blockBytesScanned` is what HBase's scan metrics say the time-range scan read of store file
 * blocks: nothing of a file whose cells are all older than the span, which HBase skips.
 */
case class HBaseChangesScan(output: Seq[Attribute], read: ChangeRead, regionsMaxAgeSeconds: Long)
    extends LeafExecNode
    with DescribedInExplain[SparkPlan]
    with ScansHBase {

  override lazy val metrics: Map[String, SQLMetric] = ReadMetrics.create(sparkContext, "rows read from HBase") +
    ("blockBytesScanned" ->
      SQLMetrics.createSizeMetric(sparkContext, "store file block bytes the time-range scan read"))

  override protected def doExecute(): RDD[InternalRow] = {
    val (metrics, blockBytes) = (ReadMetrics.of(this.metrics), this.metrics("blockBytesScanned"))
    val schema = read.schema
    new ChangesRDD(sparkContext, read, regionsMaxAgeSeconds, metrics, blockBytes).mapPartitionsWithIndex {
      (index, rows) =>
        val toUnsafe = UnsafeProjection.create(schema)
        toUnsafe.initialize(index)
        rows.map(toUnsafe)
    }
  }

  override def simpleString(maxFields: Int): String = s"Scan ${read.describe}"
}
