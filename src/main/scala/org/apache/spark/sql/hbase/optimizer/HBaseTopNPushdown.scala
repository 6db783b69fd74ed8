// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import org.apache.spark.sql.catalyst.expressions.{Alias, Attribute, NamedExpression, SortOrder, SubqueryExpression}
import org.apache.spark.sql.catalyst.expressions.IntegerLiteral
import org.apache.spark.sql.catalyst.planning.PhysicalOperation
import org.apache.spark.sql.catalyst.plans.logical.{LocalLimit, LogicalPlan, Project, Sort}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.logical.{HBaseRelation, TopNRequest}

/**
 * An ORDER BY ... LIMIT n over an HBase table, under only projections and filters, by columns of
 * the table (plain, or renamed by the projection): the relation records it, so that the planner
 * may have each region server return only its region's first n rows in that order
 * ([[TopNPerRegion]]). The Sort and the Limit stay as they are: Spark's top-n still takes the
 * answer from what the regions return.
 */
object HBaseTopNPushdown extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case limit @ LocalLimit(IntegerLiteral(n), sort @ Sort(order, true, child, _)) =>
      recorded(n, order, child).fold(limit)(c => limit.copy(child = sort.copy(child = c)))
    case limit @ LocalLimit(IntegerLiteral(n), project @ Project(_, sort @ Sort(order, true, child, _))) =>
      recorded(n, order, child).fold(limit)(c => limit.copy(child = project.copy(child = sort.copy(child = c))))
  }

  /** `child` with its relation recording the top-n, when `order` is of the relation's columns. */
  private def recorded(n: Int, order: Seq[SortOrder], child: LogicalPlan): Option[LogicalPlan] = child match {
    case PhysicalOperation(projects, filters, relation: HBaseRelation)
        if relation.topN.isEmpty && !filters.exists(SubqueryExpression.hasSubquery) =>
      val columns = ofRelation(projects, relation)
      val onColumns = order.map { o =>
        o.child match {
          case a: Attribute => columns.get(a.exprId.id).map(c => o.copy(child = c))
          case _ => None
        }
      }
      if (onColumns.exists(_.isEmpty)) None
      else {
        val wanted = TopNRequest(n, onColumns.flatten)
        Some(child.transformDown { case r: HBaseRelation if r eq relation => r.copy(topN = Some(wanted)) })
      }
    case _ => None
  }

  /** The relation's columns by the id of the attribute that carries each out of the projection. */
  private def ofRelation(projects: Seq[NamedExpression], relation: HBaseRelation): Map[Long, Attribute] = {
    val own = relation.output.map(a => a.exprId.id -> (a: Attribute)).toMap
    own ++ projects.collect {
      case alias @ Alias(a: Attribute, _) if own.contains(a.exprId.id) => alias.exprId.id -> own(a.exprId.id)
    }
  }
}
