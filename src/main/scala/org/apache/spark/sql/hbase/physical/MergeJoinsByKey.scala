// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Ascending, Attribute, Expression, NamedExpression, SortOrder}
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial
import org.apache.spark.sql.catalyst.plans.{Inner, LeftSemi}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{CollectLimitExec, InSubqueryExec, ProjectExec, SortExec, SparkPlan, SubqueryExec}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.execution.exchange.{ENSURE_REQUIREMENTS, ShuffleExchangeExec}
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseMergeJoin, HBaseTableScan}
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
        leftRead <- keyedRead(left, l)
        rightRead <- keyedRead(right, r)
        if leftRead.plan.keyOrder.head.dataType == rightRead.plan.keyOrder.head.dataType
      } yield (leftRead, rightRead)
    }
    if ((left eq join.left) && (right eq join.right)) None
    else candidates.nextOption().flatMap { case (leftRead, rightRead) =>
      val key = leftRead.plan.keyOrder.head
      val cuts = KeyAlignment.cuts(key, Seq(leftRead.plan, rightRead.plan))
      val (leftPlan, rightPlan) = (KeyAlignment.align(leftRead.plan, cuts), KeyAlignment.align(rightRead.plan, cuts))
      KeyAlignment.joined(join.joinType, leftPlan.alignment.get, rightPlan.alignment.get).map { ranges =>
        def side(child: SparkPlan, read: KeyedRead, aligned: SparkPlan, keys: Seq[Expression]) = {
          val replaced = child.transformUp { case s if s eq read.leaf => aligned }
          val ordering = keys.map(SortOrder(_, Ascending))
          if (SortOrder.orderingSatisfies(replaced.outputOrdering, ordering)) replaced
          else SortExec(ordering, global = false, replaced)
        }
        val (leftKeys, rightKeys) = keysFromOtherSide(join, left, leftRead, right, rightRead)
        def aligned(read: KeyedRead, plan: TableScanPlan, keys: Option[Expression]) =
          read.readingIn(KeyAlignment.readIn(plan, ranges), keys.map(_ -> maxJoinKeys))
        HBaseMergeJoin(
          join.copy(
            left = side(left, leftRead, aligned(leftRead, leftPlan, leftKeys), join.leftKeys),
            right = side(right, rightRead, aligned(rightRead, rightPlan, rightKeys), join.rightKeys)
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
      leftRead: KeyedRead,
      right: SparkPlan,
      rightRead: KeyedRead
  ): (Option[Expression], Option[Expression]) = (leftRead, rightRead) match {
    case (KeyedRead.Rows(leftScan), KeyedRead.Rows(rightScan)) =>
      keysFromOtherSide(join, left, leftScan, right, rightScan)
    // A side of groups neither gives keys (it would be aggregated twice) nor takes them.
    case _ => (None, None)
  }

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

  /**
   * A join's side without the shuffle, and the sort after it, that Spark placed for the join; or,
   * where the side is an aggregation grouped by the join's key, without the shuffle between its
   * partial and final steps: read aligned with the other side, each key's rows are in one partition.
   */
  private def unshuffled(side: SparkPlan): SparkPlan = side match {
    case sort: SortExec if !sort.global && placedForJoin(sort.child) => sort.child.children.head
    case exchange if placedForJoin(exchange) => exchange.children.head
    case sort: SortExec if !sort.global => finalOverPartial(sort.child).getOrElse(side)
    case other => finalOverPartial(other).getOrElse(other)
  }

  /** A final aggregation over its partial one with the shuffle between them taken out. */
  private def finalOverPartial(plan: SparkPlan): Option[SparkPlan] = plan match {
    case last: BaseAggregateExec if last.requiredChildDistributionExpressions.isDefined && placedForJoin(last.child) =>
      last.child.children.head match {
        case partial: BaseAggregateExec
            if partial.requiredChildDistributionExpressions.isEmpty &&
              partial.aggregateExpressions.forall(_.mode == Partial) =>
          Some(last.withNewChildren(Seq(partial)))
        case groups: HBaseAggregateScan => Some(last.withNewChildren(Seq(groups)))
        case _ => None
      }
    case _ => None
  }

  private def placedForJoin(plan: SparkPlan): Boolean = plan match {
    case exchange: ShuffleExchangeExec => exchange.shuffleOrigin == ENSURE_REQUIREMENTS
    case _ => false
  }

  /**
   * The read `key` is the leading key column of, when its codec keeps the key's order and it is
   * not aligned yet: a scan, or the groups of an aggregation grouped by the key (its shuffle taken out).
   */
  private def keyedRead(side: SparkPlan, key: Expression): Option[KeyedRead] = {
    def leading(plan: TableScanPlan) =
      plan.alignment.isEmpty && plan.keyOrder.headOption.exists(k => key.references.exists(_.exprId == k.exprId))
    def groupedByKey(aggregate: BaseAggregateExec) = key match {
      case a: Attribute => aggregate.groupingExpressions.exists {
          case g: Attribute => g.exprId == a.exprId
          case _ => false
        }
      case _ => false
    }
    val read = side match {
      case last: BaseAggregateExec if last.requiredChildDistributionExpressions.isDefined && groupedByKey(last) =>
        last.child match {
          case partial: BaseAggregateExec if groupedByKey(partial) =>
            KeyedScans.leadingKeyScan(partial.child, key).map(KeyedRead.Rows)
          case groups: HBaseAggregateScan
              if groups.plan.groupBy.contains(groups.plan.scan.request.table.keys.head) =>
            Some(KeyedRead.Groups(groups))
          case _ => None
        }
      case _ => KeyedScans.leadingKeyScan(side, key).map(KeyedRead.Rows)
    }
    read.filter(r => leading(r.plan))
  }
}

/** What one side of a join merged by key reads in key ranges: an HBase scan's rows, or region servers' groups of them. */
private sealed trait KeyedRead {

  /** The plan node that reads. */
  def leaf: SparkPlan

  /** The scan it reads. */
  def plan: TableScanPlan

  /** The node reading `read` instead, narrowed at run time to the keys of the other side where given (with their most). */
  def readingIn(read: TableScanPlan, keys: Option[(Expression, Int)]): SparkPlan
}

private object KeyedRead {
  final case class Rows(scan: HBaseTableScan) extends KeyedRead {
    def leaf: SparkPlan = scan
    def plan: TableScanPlan = scan.plan
    def readingIn(read: TableScanPlan, keys: Option[(Expression, Int)]): SparkPlan = {
      val aligned = scan.copy(plan = read)
      keys.fold(aligned) { case (values, most) => aligned.withKeysFromJoin(values, most) }
    }
  }

  final case class Groups(scan: HBaseAggregateScan) extends KeyedRead {
    def leaf: SparkPlan = scan
    def plan: TableScanPlan = scan.plan.scan
    def readingIn(read: TableScanPlan, keys: Option[(Expression, Int)]): SparkPlan =
      scan.copy(plan = scan.plan.readingAs(read))
  }
}
