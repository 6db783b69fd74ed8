// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.catalyst.optimizer.{BuildLeft, BuildRight}
import org.apache.spark.sql.catalyst.plans.{ExistenceJoin, Inner, LeftAnti, LeftOuter, LeftSemi, RightOuter}
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.hbase.metadata.HBaseColumn

/** The HBase scans that a join's key columns come from, as the join rules look for them. */
object KeyedScans {

  /**
   * The HBase scan under `side` whose leading key column `key` is, passed up unchanged through
   * projections, filters and the streamed side of broadcast joins: operators that keep the
   * scan's partitions and its order.
   */
  def leadingKeyScan(side: SparkPlan, key: Expression): Option[HBaseTableScan] =
    columnScan(side, key).collect { case (scan, column) if column == scan.plan.request.table.keys.head => scan }

  /** The HBase scan under `side` that reads the column `key` is, passed up as [[leadingKeyScan]] passes it. */
  def columnScan(side: SparkPlan, key: Expression): Option[(HBaseTableScan, HBaseColumn)] = (side, key) match {
    case (scan: HBaseTableScan, a: Attribute) =>
      scan.output.find(_.exprId == a.exprId).map(o => scan -> scan.plan.request.columnOf(o))
    case (project: ProjectExec, a: Attribute) if project.projectList.exists {
          case b: Attribute => b.exprId == a.exprId
          case _ => false
        } =>
      columnScan(project.child, key)
    case (filter: FilterExec, _) => columnScan(filter.child, key)
    case (join: BroadcastHashJoinExec, _) =>
      (join.buildSide, join.joinType) match {
        case (BuildRight, Inner | LeftOuter | LeftSemi | LeftAnti | ExistenceJoin(_)) => columnScan(join.left, key)
        case (BuildLeft, Inner | RightOuter) => columnScan(join.right, key)
        case _ => None
      }
    case _ => None
  }
}
