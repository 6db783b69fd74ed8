// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.physical

import org.apache.spark.sql.hbase.logical._
import org.apache.spark.sql.hbase.planner._
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{
  And, Attribute, AttributeSet, Expression, NamedExpression, SubqueryExpression
}
import org.apache.spark.sql.catalyst.planning.{PhysicalAggregation, PhysicalOperation}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FilterExec, PlanLater, ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.hbase.changes.HBaseChangesRelation
import org.apache.spark.sql.hbase.changes.HBaseChangesScan
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseTableScan}
import org.apache.spark.sql.hbase.facts.LiveTableFacts
import org.apache.spark.sql.internal.SQLConf

/**
 * Plans reads of HBase tables:
 *  - a projection and filter over a table as an `HBaseTableScan` of a finished
 *    [[TableScanPlan]]; conjuncts with subqueries stay in a Filter above the scan, where Spark
 *    runs their subqueries first;
 *  - an aggregation over such a scan as Spark plans it, except that its partial aggregation,
 *    the part below the first exchange, becomes an `HBaseAggregateScan` computed by the region
 *    servers wherever [[AggregatePushdown]] finds that they compute it exactly; the scan is
 *    planned once, and where the aggregate stays in Spark, that plan is the scan's;
 *  - the changes of a table (`HBaseChangesRelation`) as an `HBaseChangesScan`.
 */
case class HBaseStrategy(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalAggregation(_, _, _, child @ PhysicalOperation(projects, filters, relation: HBaseRelation))
        if SQLConf.get.getConf(HBaseSQLConf.Coprocessor) && SQLConf.get.getConf(HBaseSQLConf.Pushdown) =>
      planAggregate(plan, child, projects, filters, relation).toSeq
    case PhysicalOperation(projects, filters, relation: HBaseRelation) =>
      planScan(projects, filters, relation, LiveTableFacts(relation, SQLConf.get)) :: Nil
    case LogicalRelation(changes: HBaseChangesRelation, output, _, _, _) =>
      HBaseChangesScan(output, changes.read, SQLConf.get.getConf(HBaseSQLConf.PartitionExpiration)) :: Nil
    case _ => Nil
  }

  /**
   * Spark's own aggregation plan, with its partial aggregation over `child` pushed, or else over
   * the scan of `child`, planned once either way.
   */
  private def planAggregate(
      aggregate: LogicalPlan,
      child: LogicalPlan,
      projects: Seq[NamedExpression],
      filters: Seq[Expression],
      relation: HBaseRelation
  ): Option[SparkPlan] = {
    val conf = SQLConf.get
    val facts = LiveTableFacts(relation, conf)
    val columnOf = (a: Attribute) =>
      Some(relation.output.indexWhere(_.exprId == a.exprId)).filter(_ >= 0).map(relation.table.columns)
    val shape = ScanShape(projects, filters, relation)
    for {
      root <- session.sessionState.planner.Aggregation(aggregate).headOption
      partial <- root.collectFirst { case p: BaseAggregateExec if p.child == PlanLater(child) => p }
    } yield {
      // Without the bytes its regions are sent: a pushed aggregate sends bytes of its own.
      val scan =
        HBaseScanPlanner.shape(
          relation,
          shape.columns,
          shape.output,
          shape.condition,
          ScanSettings.of(conf, session.sparkContext.defaultParallelism),
          facts
        )
      // Only a bare scan: its output is what the partial aggregation reads. A scan a global index
      // narrows reads a few rows, which Spark aggregates sooner than region servers scan them all.
      val pushed = Some(scan).filter(_ => shape.bare && scan.indexLookup.isEmpty).flatMap { scan =>
        AggregatePushdown.plan(
          scan,
          partial.groupingExpressions,
          partial.aggregateExpressions,
          columnOf,
          facts,
          conf.getConf(HBaseSQLConf.CoprocessorMaxGroups),
          conf.getConf(HBaseSQLConf.CoprocessorSingleTaskMaxRegions),
          conf.getConf(HBaseSQLConf.CoprocessorMaxGroupBytes)
        )
      }
      pushed match {
        case Some(aggregateScan) =>
          root.transformUp { case p if p eq partial => HBaseAggregateScan(partial.output, aggregateScan) }
        case None =>
          val finished = HBaseScanPlanner.finish(scan)
          // A read through a covering index may have the index's region servers aggregate, when a collect reads it.
          val throughIndex = Some(finished).filter(_ =>
            shape.bare && conf.getConf(HBaseSQLConf.GlobalIndexServerAggregates) &&
              AggregatesOnTheDriver.computesOnDriver(root)
          ).flatMap(IndexAggregates.plan(
            _,
            relation,
            shape.condition,
            partial.groupingExpressions,
            partial.aggregateExpressions,
            facts,
            conf.getConf(HBaseSQLConf.CoprocessorMaxGroups),
            conf.getConf(HBaseSQLConf.CoprocessorMaxGroupBytes)
          ))
          val read = scanOf(projects, shape, finished, throughIndex)
          // As Spark links a child it plans itself, so that the scan's logical plan is the child's.
          read.setLogicalLink(child)
          root.transformUp { case later: PlanLater if later == PlanLater(child) => read }
      }
    }
  }

  /** The physical plan that reads a scan's plan: the scan, under a filter or projection if needed. */
  private def planScan(
      projects: Seq[NamedExpression],
      filters: Seq[Expression],
      relation: HBaseRelation,
      facts: TableFacts
  ): SparkPlan = {
    val shape = ScanShape(projects, filters, relation)
    scanOf(
      projects,
      shape,
      HBaseScanPlanner.plan(
        relation,
        shape.columns,
        shape.output,
        shape.condition,
        ScanSettings.of(SQLConf.get, session.sparkContext.defaultParallelism),
        facts
      )
    )
  }

  /** The scan of a finished plan, under the filter with subqueries and the projection its shape leaves to Spark. */
  private def scanOf(
      projects: Seq[NamedExpression],
      shape: ScanShape,
      plan: TableScanPlan,
      indexAggregate: Option[IndexAggregatePlan] = None
  ): SparkPlan = {
    val scan = HBaseTableScan(shape.output, plan, indexAggregate = indexAggregate)
    val filtered = shape.withSubqueries.map(FilterExec(_, scan)).getOrElse(scan)
    if (projects.map(_.toAttribute) == filtered.output) filtered else ProjectExec(projects, filtered)
  }

  /**
   * What a scan of `relation` under `projects` and `filters` reads and returns. Conjuncts with
   * subqueries are left for a Filter above it, where Spark runs their subqueries first.
   */
  private case class ScanShape(projects: Seq[NamedExpression], filters: Seq[Expression], relation: HBaseRelation) {
    private val (subqueryConjuncts, plain) = filters.partition(SubqueryExpression.hasSubquery)
    val columns: Seq[Attribute] = {
      val needed = AttributeSet(projects.flatMap(_.references) ++ filters.flatMap(_.references))
      relation.output.filter(needed.contains)
    }
    // Plain column lists are the scan's own output; expressions and subqueries are Spark's work.
    val output: Seq[Attribute] = projects match {
      case attributes if subqueryConjuncts.isEmpty && attributes.forall(_.isInstanceOf[Attribute]) =>
        attributes.map(_.toAttribute)
      case _ => columns
    }
    val condition: Option[Expression] = plain.reduceLeftOption(And)
    val withSubqueries: Option[Expression] = subqueryConjuncts.reduceLeftOption(And)

    /** Whether the scan alone is the plan: nothing above it filters or projects. */
    def bare: Boolean = withSubqueries.isEmpty && projects.map(_.toAttribute) == output
  }
}
