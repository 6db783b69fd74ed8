// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.plans.physical.OrderedDistribution
import org.apache.spark.sql.catalyst.expressions.SortOrder
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan, TakeOrderedAndProjectExec}
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{HBaseTableScan, KeyOrderLimit}
import org.apache.spark.sql.internal.SQLConf

/**
 * A query's ORDER BY ... LIMIT n, when what it orders already comes in that order (an HBase
 * scan, ordered by the row key, in regions in key order), takes the first n rows as they come
 * ([[KeyOrderLimit]]) instead of a top-n of every region. Each region's scan then returns at
 * most n rows, when Spark checks nothing of its rows. A descending order reads the scan from
 * the highest key down, where it can be reversed.
 *
 * Only the query's own result, which Spark collects: elsewhere the top-n stays Spark's.
 */
object LimitsInKeyOrder extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case top: TakeOrderedAndProjectExec if SQLConf.get.getConf(HBaseSQLConf.LimitInKeyOrder) && top.offset == 0 =>
      Some(top.child).filter(inOrder(_, top.sortOrder)).orElse(reversed(top.child).filter(inOrder(_, top.sortOrder)))
        .fold[SparkPlan](top)(child =>
          KeyOrderLimit(top.limit, top.sortOrder, top.projectList, capped(child, top.limit))
        )
    case other => other
  }

  /** `child` with the HBase scan under it read from the highest key down, where it can be. */
  private def reversed(child: SparkPlan): Option[SparkPlan] = child match {
    case scan: HBaseTableScan if scan.keysFromJoin.isEmpty && !scan.plan.request.reversed && scan.plan.reversible =>
      Some(scan.copy(plan = scan.plan.reversedRead))
    case project: ProjectExec => reversed(project.child).map(c => project.copy(child = c))
    case filter: FilterExec => reversed(filter.child).map(c => filter.copy(child = c))
    case _ => None
  }

  /**
   * Whether `child`'s partitions, one after the other, come in `order`: each is sorted by it, and
   * they are ranges of it in order, or regions of an HBase scan in key order (where the value of
   * a leading key column may go on from one to the next).
   */
  private def inOrder(child: SparkPlan, order: Seq[SortOrder]): Boolean =
    SortOrder.orderingSatisfies(child.outputOrdering, order) &&
      (child.outputPartitioning.satisfies(OrderedDistribution(order)) || scanInRegionOrder(child))

  private def scanInRegionOrder(plan: SparkPlan): Boolean = plan match {
    case _: HBaseTableScan => true
    case project: ProjectExec => scanInRegionOrder(project.child)
    case filter: FilterExec => scanInRegionOrder(filter.child)
    case _ => false
  }

  /** The scan under at most a projection, returning no more than `limit` rows a region, when none is filtered out later. */
  private def capped(child: SparkPlan, limit: Int): SparkPlan = child match {
    case scan: HBaseTableScan if scan.keysFromJoin.isEmpty && scan.plan.regions.forall(_.residual.isEmpty) =>
      scan.copy(plan = scan.plan.limitedTo(limit))
    case project: ProjectExec => project.copy(child = capped(project.child, limit))
    case other => other
  }
}
