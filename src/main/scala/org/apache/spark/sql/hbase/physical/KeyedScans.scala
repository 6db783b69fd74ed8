// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight}
import org.apache.spark.sql.catalyst.plans.{ExistenceJoin, Inner, LeftAnti, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql.hbase.execution.HBaseTableScan

/** The HBase scans that a join's key columns come from, as the join rules look for them. */
object KeyedScans {

  /**
   * The HBase scan under `side` whose leading key column `key` is, passed up unchanged through
   * projections, filters and the streamed side of broadcast joins: operators that keep the
   * scan's partitions and its order.
   */
  def leadingKeyScan(side: SparkPlan, key: Expression): Option[HBaseTableScan] = (side, key) match {
    case (scan: HBaseTableScan, a: Attribute) =>
      val request = scan.plan.request
      Some(scan).filter(_ =>
        scan.output.exists(o => o.exprId == a.exprId && request.columnOf(o) == request.table.keys.head)
      )
    case (project: ProjectExec, a: Attribute) if project.projectList.exists {
          case b: Attribute => b.exprId == a.exprId
          case _ => false
        } =>
      leadingKeyScan(project.child, key)
    case (filter: FilterExec, _) => leadingKeyScan(filter.child, key)
    case (join: BroadcastHashJoinExec, _) =>
      (join.buildSide, join.joinType) match {
        case (BuildRight, Inner | LeftOuter | LeftSemi | LeftAnti | ExistenceJoin(_)) => leadingKeyScan(join.left, key)
        case (BuildLeft, Inner | RightOuter) => leadingKeyScan(join.right, key)
        case _ => None
      }
    case _ => None
  }
}
