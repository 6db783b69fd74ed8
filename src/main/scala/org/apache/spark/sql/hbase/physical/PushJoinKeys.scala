// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Expression, NamedExpression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight}
import org.apache.spark.sql.catalyst.plans.{Inner, LeftSemi}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{InSubqueryExec, SparkPlan, SubqueryBroadcastExec}
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.hbase.planner.IndexLookup
import org.apache.spark.sql.internal.SQLConf

/**
 * A broadcast join whose streamed side reads an HBase table, joined on its leading key column,
 * hands the scan the keys of the broadcast side: the scan then reads only the rows of those
 * keys ([[org.apache.spark.sql.hbase.planner.JoinKeys]]); joined on the leading column of a
 * global index, the rows the index names for those values. At most
 * `spark.sql.hbase.join.pushKeys.maxKeys` of them. The keys come from the broadcast itself,
 * as Spark's dynamic partition pruning takes them, so the small side is not read twice where
 * Spark reuses the broadcast. Only joins that drop the streamed rows without a match qualify:
 * inner joins, and semi joins that stream their left side.
 *
 * It runs where [[MergeJoinsByKey]] does, after Spark has placed its exchanges.
 */
object PushJoinKeys extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = {
    val maxKeys = SQLConf.get.getConf(HBaseSQLConf.PushJoinKeysMax)
    if (maxKeys <= 0) plan
    else plan.transformUp {
      case join: BroadcastHashJoinExec => pushed(join, maxKeys).getOrElse(join)
    }
  }

  private def pushed(join: BroadcastHashJoinExec, maxKeys: Int): Option[SparkPlan] = {
    val (streamed, streamedKeys, buildKeys, build) = (join.buildSide, join.joinType) match {
      case (BuildRight, Inner | LeftSemi) => (join.left, join.leftKeys, join.rightKeys, join.right)
      case (BuildLeft, Inner) => (join.right, join.rightKeys, join.leftKeys, join.left)
      case _ => return None
    }
    streamedKeys.indices.iterator.flatMap(i => target(streamed, streamedKeys(i)).map(_ -> i)).nextOption().map {
      case ((scan, throughIndex), i) =>
        val keys = InSubqueryExec(
          streamedKeys(i),
          SubqueryBroadcastExec("hbase join keys", Seq(i), buildKeys, build),
          NamedExpression.newExprId
        )
        val narrowed =
          streamed.transformUp { case s if s eq scan => scan.withKeysFromJoin(keys, maxKeys, throughIndex) }
        join.buildSide match {
          case BuildRight => join.copy(left = narrowed)
          case BuildLeft => join.copy(right = narrowed)
        }
    }
  }

  /**
   * The scan `key` is the leading key column of, or else the leading column of a global index of
   * ([[org.apache.spark.sql.hbase.planner.IndexLookup.forJoins]], as its planner allowed), with
   * that index's lookup.
   */
  private def target(side: SparkPlan, key: Expression): Option[(HBaseTableScan, Option[IndexLookup])] =
    keyScan(side, key).map(_ -> None).orElse(
      KeyedScans.columnScan(side, key).flatMap { case (scan, column) =>
        if (scan.keysFromJoin.nonEmpty) None
        else scan.plan.joinIndexes.find(_.index.columns.head.equalsIgnoreCase(column.name)).map(l => scan -> Some(l))
      }
    )

  /** The scan `key` is the leading key column of, when the planner can range over it and no join narrows it yet. */
  private def keyScan(side: SparkPlan, key: Expression): Option[HBaseTableScan] =
    KeyedScans.leadingKeyScan(side, key).filter { scan =>
      scan.keysFromJoin.isEmpty && KeyCodec.forTable(scan.plan.request.table).prunableKeyColumns > 0
    }
}
