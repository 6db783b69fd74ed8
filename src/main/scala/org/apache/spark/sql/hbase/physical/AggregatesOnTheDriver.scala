// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateFunction, AggregateMode, Complete, DeclarativeAggregate, Final, Partial
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.{ExecSubqueryExpression, FilterExec, ProjectExec, SparkPlan}
import org.apache.spark.sql.execution.aggregate.HashAggregateExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{DriverAggregate, HBaseTableScan, RowsAggregation}
import org.apache.spark.sql.internal.SQLConf

/**
 * An aggregate with no exchange under it (in one step, or a final step over a partial one)
 * over an HBase scan that a collect reads on the driver, through filters and projections at
 * most, is computed on the driver by a collect ([[DriverAggregate]]): a lookup's rows, or
 * those a global index names, cost less to aggregate there than a Spark job costs. Functions
 * Spark states as expressions only (count, sum, avg, min, max, ...), none DISTINCT; no subquery
 * and nothing nondeterministic.
 */
object AggregatesOnTheDriver extends Rule[SparkPlan] {

  override def apply(plan: SparkPlan): SparkPlan =
    if (!SQLConf.get.getConf(HBaseSQLConf.DriverReadAggregates)) plan else onDriver(plan)

  private def onDriver(plan: SparkPlan): SparkPlan = plan match {
    case done: DriverAggregate => done
    case agg: HashAggregateExec => aggregation(agg).fold(plan.withNewChildren(plan.children.map(onDriver))) {
        DriverAggregate(_, agg)
      }
    case other => other.withNewChildren(other.children.map(onDriver))
  }

  /**
   * The aggregate in one step: Spark's own (its partial and final steps merged, under adaptive
   * execution), or a final step straight over its partial one.
   */
  private def aggregation(agg: HashAggregateExec): Option[RowsAggregation] = agg.child match {
    case partial: HashAggregateExec
        if modes(agg, Final) && modes(partial, Partial) &&
          functionsOf(agg) == functionsOf(partial) =>
      aggregation(agg, partial, partial.child)
    case child if modes(agg, Complete) => aggregation(agg, agg, child)
    case _ => None
  }

  private def aggregation(
      result: HashAggregateExec,
      input: HashAggregateExec,
      child: SparkPlan
  ): Option[RowsAggregation] = {
    val functions = functionsOf(input).collect { case f: DeclarativeAggregate => f }
    if (functions.size != input.aggregateExpressions.size) None
    else stepsDown(child).filter { case (_, steps) =>
      // A subquery runs before its plan does, and a nondeterministic expression needs a partition.
      val expressions = input.groupingExpressions ++ functions ++ result.resultExpressions ++ steps.flatMap {
        case RowsAggregation.Filter(condition) => Seq(condition)
        case RowsAggregation.Project(list) => list
      }
      expressions.forall(e => e.deterministic && !e.exists(_.isInstanceOf[ExecSubqueryExpression]))
    }.map { case (scan, steps) =>
      RowsAggregation(
        scan.output,
        steps,
        input.groupingExpressions,
        functions,
        result.groupingExpressions.map(_.toAttribute) ++ result.aggregateAttributes,
        result.resultExpressions
      )
    }
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
