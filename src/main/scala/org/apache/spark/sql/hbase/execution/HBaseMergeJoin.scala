// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, SortOrder}
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * Marks a sort-merge join whose sides are partitioned alike already, in the same ranges of the
 * join's leading key, each in key order (two HBase scans aligned by `KeyAlignment`, under
 * filters, projections and joins that keep their partitions): Spark's merge runs partition by
 * partition without the shuffles and sorts it would otherwise have below it, and with its own
 * generated code. EXPLAIN shows the mark above it.
 */
case class HBaseMergeJoin(child: SparkPlan, keyRanges: Int) extends UnaryExecNode with DescribedInExplain[SparkPlan] {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override protected def doExecute(): RDD[InternalRow] = child.execute()

  override def simpleString(maxFields: Int): String =
    s"HBaseMergeJoin merged by key in $keyRanges aligned key ranges, no exchange"

  override protected def withNewChildInternal(newChild: SparkPlan): HBaseMergeJoin = copy(child = newChild)
}
