// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateFunction, AggregateMode, Complete, DeclarativeAggregate, Final, Partial
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.execution.{ExecSubqueryExpression, FilterExec, ProjectExec, SortExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{DriverAggregate, HBaseTableScan, RowsAggregation}
import org.apache.spark.sql.internal.SQLConf

/**
 * An aggregate with no exchange under it (in one step, or a final step over a partial one)
 * over an HBase scan that a collect reads on the driver, through filters and projections at
 * most, is computed on the driver by a collect ([[DriverAggregate]]): a lookup's rows, or
 * those a global index names, cost less to aggregate there than a Spark job costs. So is what
 * follows it with no exchange between: a HAVING's filter, projections, an ORDER BY's sort.
 * Functions Spark states as expressions only (count, sum, avg, min, max, ...), none DISTINCT;
 * no subquery and nothing nondeterministic.
 */
object AggregatesOnTheDriver extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!SQLConf.get.getConf(HBaseSQLConf.DriverReadAggregates)) plan else onDriver(plan)

  private def onDriver(plan: SparkPlan): SparkPlan = plan match {
    case done: DriverAggregate => done
    case top => withWhatFollows(top).fold(top.withNewChildren(top.children.map(onDriver)))(DriverAggregate(_, top))
  }

  /**
   * The aggregate `top` is, or ends in: over it, a HAVING's filter, projections and an ORDER BY's
   * sort of the aggregate's rows, with no exchange between (the aggregate's rows in one partition).
   */
  private def withWhatFollows(top: SparkPlan): Option[RowsAggregation] = {
    val after: PartialFunction[SparkPlan, (SparkPlan, RowsAggregation.Step)] = {
      case f: FilterExec => (f.child, RowsAggregation.Filter(f.condition))
      case p: ProjectExec => (p.child, RowsAggregation.Project(p.projectList))
      case s: SortExec if s.global => (s.child, RowsAggregation.Sort(s.sortOrder))
    }
    top match {
      case agg: HashAggregateExec => aggregation(agg)
      case above if after.isDefinedAt(above) =>
        val (child, step) = after(above)
        withWhatFollows(child).filter(_ => decidedOnDriver(RowsAggregation.expressions(step))).map(_.andThen(step))
      case _ => None
    }
  }

  // A subquery runs before its plan does, and a nondeterministic expression needs a partition.
  private def decidedOnDriver(expressions: Seq[Expression]): Boolean =
    expressions.forall(e => e.deterministic && !e.exists(_.isInstanceOf[ExecSubqueryExpression]))

  /**
   * Whether `root`, Spark's plan of an aggregate over a scan not yet planned, is one this rule
   * computes on the driver once that scan is read there by a collect with nothing between them.
   */
  def computesOnDriver(root: SparkPlan): Boolean =
    SQLConf.get.getConf(HBaseSQLConf.DriverReadAggregates) &&
      (root match {
        case agg: HashAggregateExec => stepsOf(agg).exists { case (result, input, _) => computable(result, input, Nil) }
        case _ => false
      })

  /** The aggregate in one step, over the scan it reads on the driver through the steps below it. */
  private def aggregation(agg: HashAggregateExec): Option[RowsAggregation] = stepsOf(agg).flatMap {
    case (result, input, child) =>
      stepsDown(child).filter { case (_, steps) =>
        computable(result, input, steps.flatMap(RowsAggregation.expressions))
      }.map { case (scan, steps) =>
        RowsAggregation(
          scan.output,
          steps,
          input.groupingExpressions,
          functionsOf(input).collect { case f: DeclarativeAggregate => f },
          result.groupingExpressions.map(_.toAttribute) ++ result.aggregateAttributes,
          result.resultExpressions
        )
      }
  }

  /**
   * The steps of one aggregate, (the step giving its result, the step reading its input, what it
   * reads): a final step straight over its partial one, or one step (Spark's own two merged,
   * under adaptive execution).
   */
  private def stepsOf(agg: HashAggregateExec): Option[(HashAggregateExec, HashAggregateExec, SparkPlan)] =
    agg.child match {
      case partial: HashAggregateExec
          if modes(agg, Final) && modes(partial, Partial) && functionsOf(agg) == functionsOf(partial) =>
        Some((agg, partial, partial.child))
      case child if modes(agg, Complete) => Some((agg, agg, child))
      case _ => None
    }

  /** Functions Spark states as expressions only, and all it computes (with `below`) decided on the driver. */
  private def computable(result: HashAggregateExec, input: HashAggregateExec, below: Seq[Expression]): Boolean = {
    val functions = functionsOf(input)
    functions.forall(_.isInstanceOf[DeclarativeAggregate]) &&
    decidedOnDriver(input.groupingExpressions ++ functions ++ result.resultExpressions ++ below)
  }

  private def modes(agg: HashAggregateExec, mode: AggregateMode): Boolean =
    agg.aggregateExpressions.forall(e => e.mode == mode && !e.isDistinct && e.filter.isEmpty)

  private def functionsOf(agg: HashAggregateExec): Seq[AggregateFunction] =
    agg.aggregateExpressions.map(_.aggregateFunction)

  /** The scan under `plan`, read on the driver by a collect, and the steps from it up to `plan`. */
  private def stepsDown(plan: SparkPlan): Option[(HBaseTableScan, Seq[RowsAggregation.Step])] = plan match {
    case scan: HBaseTableScan if scan.plan.driverRead && scan.keysFromJoin.isEmpty => Some((scan, Nil))
    case filter: FilterExec => stepsDown(filter.child).map { case (s, steps) =>
        (s, steps :+ RowsAggregation.Filter(filter.condition))
      }
    case project: ProjectExec => stepsDown(project.child).map { case (s, steps) =>
        (s, steps :+ RowsAggregation.Project(project.projectList))
      }
    case _ => None
  }
}
