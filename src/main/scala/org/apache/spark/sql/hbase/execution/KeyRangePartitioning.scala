// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.sql.catalyst.expressions.{Ascending, Expression, Unevaluable}
import org.apache.spark.sql.catalyst.plans.physical.{
  ClusteredDistribution, Distribution, OrderedDistribution, Partitioning, ShuffleSpec
}
import org.apache.spark.sql.hbase.planner.KeyAlignment
import org.apache.spark.sql.types.{DataType, IntegerType}

/**
 * The partitions of a scan aligned by its leading key column ([[KeyAlignment]]): ranges of
 * `key`'s values, in ascending order, so all rows of one value are in one partition.
 */
final case class KeyRangePartitioning(key: Expression, alignment: KeyAlignment)
    extends Expression with Partitioning with Unevaluable {

  override val numPartitions: Int = alignment.ranges.size

  override def children: Seq[Expression] = Seq(key)
  override def nullable: Boolean = false
  override def dataType: DataType = IntegerType

  override def satisfies0(required: Distribution): Boolean = super.satisfies0(required) ||
    (required match {
      case ClusteredDistribution(clustering, requireAllClusterKeys, _, _) =>
        if (requireAllClusterKeys) clustering.size == 1 && clustering.head.semanticEquals(key)
        else clustering.exists(_.semanticEquals(key))
      case OrderedDistribution(ordering) =>
        ordering.headOption.exists(o => o.direction == Ascending && o.child.semanticEquals(key))
      case _ => false
    })

  /**
   * No other partitioning is known to put a value where this one does, and Spark cannot shuffle
   * rows into key ranges of HBase regions: a join with anything else shuffles both sides, until
   * `MergeJoinsByKey` finds two scans aligned alike.
   */
  override def createShuffleSpec(distribution: ClusteredDistribution): ShuffleSpec = KeyRangeShuffleSpec(numPartitions)

  override protected def withNewChildrenInternal(newChildren: IndexedSeq[Expression]): KeyRangePartitioning =
    copy(key = newChildren.head)
}

final case class KeyRangeShuffleSpec(numPartitions: Int) extends ShuffleSpec {
  override def isCompatibleWith(other: ShuffleSpec): Boolean = false
  override def canCreatePartitioning: Boolean = false
}
