package org.apache.spark.sql.hbase.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, SortOrder}
import org.apache.spark.sql.catalyst.plans.JoinType
import org.apache.spark.sql.catalyst.plans.physical.{Distribution, Partitioning, UnspecifiedDistribution}
import org.apache.spark.sql.execution.{BinaryExecNode, SparkPlan}
import org.apache.spark.sql.execution.joins.SortMergeJoinExec
import org.apache.spark.sql.execution.metric.SQLMetric

/**
 * A join of two sides whose partitions are the same ranges of the join's leading key, each in
 * key order (two HBase scans aligned by `KeyAlignment`, under filters, projections and joins
 * that keep their partitions): partition i of one side is merged with partition i of the other,
 * as a sort-merge join does after its shuffles and sorts, which this join has no need of.
 */
case class HBaseMergeJoin(
    leftKeys: Seq[Expression],
    rightKeys: Seq[Expression],
    joinType: JoinType,
    condition: Option[Expression],
    left: SparkPlan,
    right: SparkPlan,
    keyRanges: Int
) extends BinaryExecNode {

  // Spark's own merge, given the children as they stand.
  @transient private lazy val merge = SortMergeJoinExec(leftKeys, rightKeys, joinType, condition, left, right)

  override def output: Seq[Attribute] = merge.output
  override def outputPartitioning: Partitioning = merge.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = merge.outputOrdering

  // The sides are partitioned alike already: nothing may be shuffled in between.
  override def requiredChildDistribution: Seq[Distribution] = Seq(UnspecifiedDistribution, UnspecifiedDistribution)
  override def requiredChildOrdering: Seq[Seq[SortOrder]] = merge.requiredChildOrdering

  override lazy val metrics: Map[String, SQLMetric] = merge.metrics

  override protected def doExecute(): RDD[InternalRow] = {
    require(
      left.outputPartitioning.numPartitions == right.outputPartitioning.numPartitions,
      s"sides of a merge by key with ${left.outputPartitioning.numPartitions} and " +
        s"${right.outputPartitioning.numPartitions} partitions"
    )
    merge.execute()
  }

  override def simpleString(maxFields: Int): String =
    s"HBaseMergeJoin $joinType, merged by key (${leftKeys.map(_.sql).mkString(", ")}) = " +
      s"(${rightKeys.map(_.sql).mkString(", ")}) in $keyRanges aligned key ranges, no exchange" +
      condition.fold("")(c => s", condition ${c.sql}")

  override protected def withNewChildrenInternal(newLeft: SparkPlan, newRight: SparkPlan): HBaseMergeJoin =
    copy(left = newLeft, right = newRight)
}
