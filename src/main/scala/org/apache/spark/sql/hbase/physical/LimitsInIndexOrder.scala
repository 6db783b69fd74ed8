// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, Descending, Expression, NullsLast, SortOrder}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{
  ExecSubqueryExpression, FilterExec, ProjectExec, SparkPlan, TakeOrderedAndProjectExec
}
import org.apache.spark.sql.hbase.execution.{HBaseTableScan, IndexOrderLimit}
import org.apache.spark.sql.hbase.planner.IndexOrder

/**
 * A query's ORDER BY ... LIMIT n over an HBase scan whose plan reads it in a global index's order
 * ([[IndexOrder]]), under only deterministic projections and filters: a collect reads the rows the
 * index names on the driver ([[IndexOrderLimit]]). The top-n must be the one the plan was made
 * for: led by the indexed column (through a projection's renames), in its direction, with NULLs
 * last unless none can be kept, and taking no more rows than the plan reads for.
 *
 * Only the query's own result, which Spark collects: elsewhere the top-n stays Spark's.
 */
object LimitsInIndexOrder extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan = plan match {
    case top: TakeOrderedAndProjectExec if top.offset == 0 && readsInIndexOrder(top, top.child, Map.empty) =>
      IndexOrderLimit(top.limit, top.sortOrder, top.projectList, top.child)
    case other => other
  }

  /** `renamed`: the attribute each alias above stands for, by its id. */
  private def readsInIndexOrder(top: TakeOrderedAndProjectExec, plan: SparkPlan, renamed: Map[Long, Long]): Boolean =
    plan match {
      case scan: HBaseTableScan =>
        scan.keysFromJoin.isEmpty && scan.plan.alignment.isEmpty &&
        scan.plan.indexOrder.exists(planned(top, _, renamed))
      case project: ProjectExec if project.projectList.forall(simple) =>
        val aliases = project.projectList.collect { case a @ Alias(child: Attribute, _) =>
          a.exprId.id -> child.exprId.id
        }
        val through = aliases.map { case (alias, of) => alias -> renamed.getOrElse(of, of) }.toMap
        readsInIndexOrder(top, project.child, renamed.map { case (k, v) => k -> through.getOrElse(v, v) } ++ through)
      case filter: FilterExec if simple(filter.condition) => readsInIndexOrder(top, filter.child, renamed)
      case _ => false
    }

  private def planned(top: TakeOrderedAndProjectExec, order: IndexOrder, renamed: Map[Long, Long]): Boolean = {
    val first: SortOrder = top.sortOrder.head
    top.limit <= order.limit && (first.direction == Descending) == order.descending &&
    (order.complete || first.nullOrdering == NullsLast) &&
    (first.child match {
      case a: Attribute => renamed.getOrElse(a.exprId.id, a.exprId.id) == order.column.exprId.id
      case _ => false
    })
  }

  private def simple(e: Expression): Boolean =
    e.deterministic && !e.exists(_.isInstanceOf[ExecSubqueryExpression])
}
