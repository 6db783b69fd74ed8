// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.plans.{Inner, LeftSemi}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CollectLimitExec, InSubqueryExec, ProjectExec, SortExec, SparkPlan, SubqueryExec}
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, ShuffleExchangeExec}
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{HBaseMergeJoin, HBaseTableScan}
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.hbase.planner.{KeyAlignment, TableScanPlan}
import org.apache.spark.sql.internal.SQLConf

/**
 * A sort-merge join on the leading key columns of two HBase tables, for which Spark has
 * shuffled and sorted both sides, is merged by key instead: both scans are read in the same
 * ranges of that column's values ([[KeyAlignment]]), each in key order, so the shuffles and the
 * sorts go ([[HBaseMergeJoin]] marks the join). Each side may be a scan under filters,
 * projections and broadcast joins that stream it, as long as the key reaches the join
 * unchanged. Anything else is left as Spark planned it. Where one side of an inner or semi join
 * filters by more than key ranges, the other side's scan reads only the first side's keys.
 *
 * It runs after Spark has placed its exchanges (with adaptive execution, among the rules that
 * prepare query stages; without, before columnar transitions).
 */
object MergeJoinsByKey extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!SQLConf.get.getConf(HBaseSQLConf.MergeJoinByKey)) plan
    else plan.transformUp {
      case join: SortMergeJoinExec if !join.isSkewJoin => merged(join).getOrElse(join)
    }

  private def merged(join: SortMergeJoinExec): Option[SparkPlan] = {
    val (left, right) = (unshuffled(join.left), unshuffled(join.right))
    val candidates = join.leftKeys.zip(join.rightKeys).iterator.flatMap { case (l, r) =>
      for {
        leftScan <- keyScan(left, l)
        rightScan <- keyScan(right, r)
        if leftScan.plan.keyOrder.head.dataType == rightScan.plan.keyOrder.head.dataType
      } yield (leftScan, rightScan)
    }
    if ((left eq join.left) && (right eq join.right)) None
    else candidates.nextOption().flatMap { case (leftScan, rightScan) =>
      val key = leftScan.plan.keyOrder.head
      val cuts = KeyAlignment.cuts(key, Seq(leftScan.plan, rightScan.plan))
      val (leftPlan, rightPlan) = (KeyAlignment.align(leftScan.plan, cuts), KeyAlignment.align(rightScan.plan, cuts))
      KeyAlignment.joined(join.joinType, leftPlan.alignment.get, rightPlan.alignment.get).map { ranges =>
        def side(child: SparkPlan, scan: HBaseTableScan, aligned: SparkPlan, keys: Seq[Expression]) = {
          val replaced = child.transformUp { case s if s eq scan => aligned }
          val ordering = keys.map(SortOrder(_, Ascending))
          if (SortOrder.orderingSatisfies(replaced.outputOrdering, ordering)) replaced
          else SortExec(ordering, global = false, replaced)
        }
        val (leftKeys, rightKeys) = keysFromOtherSide(join, left, leftScan, right, rightScan)
        def aligned(scan: HBaseTableScan, plan: TableScanPlan, keys: Option[Expression]) = {
          val read = scan.copy(plan = KeyAlignment.readIn(plan, ranges))
          keys.fold(read)(read.withKeysFromJoin(_, maxJoinKeys))
        }
        HBaseMergeJoin(
          join.copy(
            left = side(left, leftScan, aligned(leftScan, leftPlan, leftKeys), join.leftKeys),
            right = side(right, rightScan, aligned(rightScan, rightPlan, rightKeys), join.rightKeys)
          ),
          ranges.size
        )
      }
    }
  }

  private def maxJoinKeys: Int = SQLConf.get.getConf(HBaseSQLConf.PushJoinKeysMax)

  /**
   * The keys one side of an inner or semi join gives the other's scan: a side that filters its
   * rows by more than key ranges may hold few keys, and the other side then reads only theirs,
   * as after a broadcast ([[PushJoinKeys]]). The side is read once more for them, up to one key
   * more than may be pushed: with more, the other side reads as planned. That second read only
   * pays when the other side's table is the bigger by far (TPC-H Q12's filtered lineitem pushed
   * into orders read 1.6 times the rows and took 1.6 times as long), so it needs the tables' sizes,
   * as HBase gave them when the query was resolved, to differ by the setting's ratio.
   */
  private def keysFromOtherSide(
      join: SortMergeJoinExec,
      left: SparkPlan,
      leftScan: HBaseTableScan,
      right: SparkPlan,
      rightScan: HBaseTableScan
  ): (Option[Expression], Option[Expression]) = {
    def filters(scan: HBaseTableScan) =
      scan.plan.regions.exists(r => r.residual.isDefined || r.server.exists(_.pushed.nonEmpty))
    def keysOf(side: SparkPlan, sideScan: HBaseTableScan, into: HBaseTableScan): Option[Expression] = {
      val keys = ProjectExec(Seq(sideScan.plan.keyOrder.head), side)
      Some(InSubqueryExec(
        into.plan.keyOrder.head,
        SubqueryExec("hbase join keys", CollectLimitExec(limit = maxJoinKeys + 1, child = keys)),
        NamedExpression.newExprId
      ))
    }
    def worthIt(from: HBaseTableScan, into: HBaseTableScan): Boolean = {
      val ratio = SQLConf.get.getConf(HBaseSQLConf.PushMergeKeysMinTableRatio)
      val bigEnough = (tableBytes(from), tableBytes(into)) match {
        case (Some(f), Some(i)) => BigDecimal(i) >= BigDecimal(f) * ratio
        case _ => false // unknown sizes: read as planned
      }
      ratio == 0 || bigEnough
    }
    if (maxJoinKeys <= 0 || leftScan.keysFromJoin.isDefined || rightScan.keysFromJoin.isDefined) (None, None)
    else join.joinType match {
      case Inner | LeftSemi if filters(rightScan) && !filters(leftScan) && worthIt(rightScan, leftScan) =>
        (keysOf(right, rightScan, leftScan), None)
      case Inner if filters(leftScan) && !filters(rightScan) && worthIt(leftScan, rightScan) =>
        (None, keysOf(left, leftScan, rightScan))
      case _ => (None, None)
    }
  }

  /** The bytes HBase held for a scan's table when its relation was resolved, through the scan's logical link. */
  private def tableBytes(scan: HBaseTableScan): Option[BigInt] =
    scan.logicalLink.flatMap(_.collectFirst {
      case r: HBaseRelation if r.table.name == scan.plan.request.table.name => r.sizeInBytes
    }).flatten

  /** A join's side without the shuffle, and the sort after it, that Spark placed for the join. */
  private def unshuffled(side: SparkPlan): SparkPlan = side match {
    case sort: SortExec if !sort.global && placedForJoin(sort.child) => sort.child.children.head
    case exchange if placedForJoin(exchange) => exchange.children.head
    case other => other
  }

  private def placedForJoin(plan: SparkPlan): Boolean = plan match {
    case exchange: ShuffleExchangeExec => exchange.shuffleOrigin == ENSURE_REQUIREMENTS
    case _ => false
  }

  /** The scan `key` is the leading key column of, when its codec keeps the key's order and it is not aligned yet. */
  private def keyScan(side: SparkPlan, key: Expression): Option[HBaseTableScan] =
    KeyedScans.leadingKeyScan(side, key).filter { scan =>
      scan.plan.alignment.isEmpty &&
      scan.plan.keyOrder.headOption.exists(k => key.references.exists(_.exprId == k.exprId))
    }
}
