// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, NamedExpression, SortOrder, UnsafeProjection}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{SparkPlan, TakeOrderedAndProjectExec, UnaryExecNode}
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * The first `limit` rows by `sortOrder` of a child whose partitions already come in that order,
 * each sorted by it (HBase scans by the row key): a collect takes the first rows of the first
 * partitions, as far as it needs, instead of a top-n of every partition. Other uses of the
 * result run Spark's top-n.
 */
case class KeyOrderLimit(limit: Int, sortOrder: Seq[SortOrder], projectList: Seq[NamedExpression], child: SparkPlan)
    extends UnaryExecNode
    with DescribedInExplain[SparkPlan] {

  @transient private lazy val topN = TakeOrderedAndProjectExec(limit, sortOrder, projectList, child)

  override def output: Seq[Attribute] = projectList.map(_.toAttribute)
  override def outputOrdering: Seq[SortOrder] = sortOrder
  override def outputPartitioning: Partitioning = SinglePartition

  /**
   * The first partitions' first rows: a job per partition, each taking what is still missing,
   * so no region is read beyond the rows returned (or a region read on the driver, without a job).
   */
  override def executeCollect(): Array[InternalRow] = {
    val taken = child match {
      case scan: HBaseTableScan if scan.plan.driverRead => scan.executeTake(limit)
      case _ =>
        val width = child.output.size
        val rows = child.execute().mapPartitionsWithIndexInternal { (index, iter) =>
          val unsafe = UnsafeProjection.create(child.output, child.output)
          unsafe.initialize(index)
          iter.map(unsafe)
        }
        val out = Array.newBuilder[InternalRow]
        var (count, partition) = (0, 0)
        while (count < limit && partition < rows.getNumPartitions) {
          val first = CollectedRows.in(rows, width, Seq(partition), limit - count)
          out ++= first
          count += first.length
          partition += 1
        }
        out.result()
    }
    val project = UnsafeProjection.create(projectList, child.output)
    taken.map(row => project(row).copy())
  }

  override def executeTake(n: Int): Array[InternalRow] = executeCollect().take(n)

  override protected def doExecute(): RDD[InternalRow] = topN.execute()

  override def simpleString(maxFields: Int): String =
    s"KeyOrderLimit $limit, in key order [${sortOrder.map(_.sql).mkString(", ")}], " +
      s"output [${output.map(_.name).mkString(", ")}]"

  override protected def withNewChildInternal(newChild: SparkPlan): KeyOrderLimit = copy(child = newChild)
}
