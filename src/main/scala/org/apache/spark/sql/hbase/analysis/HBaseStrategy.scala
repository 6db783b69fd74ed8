package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.hbase.planning._
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.expressions.{
  And, Attribute, AttributeSet, Expression, NamedExpression, SubqueryExpression
}
import org.apache.spark.sql.catalyst.planning.{PhysicalAggregation, PhysicalOperation}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FilterExec, PlanLater, ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseSQLTableScan}
import org.apache.spark.sql.hbase.facts.LiveTableFacts
import org.apache.spark.sql.internal.SQLConf

/**
 * Plans reads of HBase tables:
 *  - a projection and filter over a table as an `HBaseSQLTableScan` of a finished
 *    [[TableScanPlan]]; conjuncts with subqueries stay in a Filter above the scan, where Spark
 *    runs their subqueries first;
 *  - an aggregation over such a scan as Spark plans it, except that its partial aggregation,
 *    the part below the first exchange, becomes an `HBaseAggregateScan` computed by the region
 *    servers wherever [[AggregatePushdown]] finds that they compute it exactly.
 */
case class HBaseStrategy(session: SparkSession) extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalAggregation(_, _, _, child @ PhysicalOperation(projects, filters, relation: HBaseRelation))
        if SQLConf.get.getConf(HBaseSQLConf.Coprocessor) && SQLConf.get.getConf(HBaseSQLConf.Pushdown) =>
      planAggregate(plan, child, projects, filters, relation).toSeq
    case PhysicalOperation(projects, filters, relation: HBaseRelation) =>
      planScan(projects, filters, relation, LiveTableFacts(relation, SQLConf.get))._2 :: Nil
    case _ => Nil
  }

  /** Spark's own aggregation plan, with its partial aggregation over `child` pushed; None when it cannot be. */
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
    for {
      root <- session.sessionState.planner.Aggregation(aggregate).headOption
      partial <- root.collectFirst { case p: BaseAggregateExec if p.child == PlanLater(child) => p }
      (scanPlan, scan) = planScan(projects, filters, relation, facts)
      // Only a bare scan: its output is what the partial aggregation reads.
      if scan.isInstanceOf[HBaseSQLTableScan]
      pushed <- AggregatePushdown.plan(
        scanPlan,
        partial.groupingExpressions,
        partial.aggregateExpressions,
        columnOf,
        facts,
        conf.getConf(HBaseSQLConf.CoprocessorMaxGroups),
        conf.getConf(HBaseSQLConf.CoprocessorSingleTaskMaxRegions),
        conf.getConf(HBaseSQLConf.CoprocessorMaxGroupBytes)
      )
    } yield root.transformUp { case p if p eq partial => HBaseAggregateScan(partial.output, pushed) }
  }

  /** The scan's plan, and the physical plan that reads it (the scan, under a filter or projection if needed). */
  private def planScan(
      projects: Seq[NamedExpression],
      filters: Seq[Expression],
      relation: HBaseRelation,
      facts: TableFacts
  ): (TableScanPlan, SparkPlan) = {
    val needed = AttributeSet(projects.flatMap(_.references) ++ filters.flatMap(_.references))
    val columns = relation.output.filter(needed.contains)
    val (withSubqueries, plain) = filters.partition(SubqueryExpression.hasSubquery)
    // Plain column lists are the scan's own output; expressions and subqueries are Spark's work.
    val output = projects match {
      case attributes if withSubqueries.isEmpty && attributes.forall(_.isInstanceOf[Attribute]) =>
        attributes.map(_.toAttribute)
      case _ => columns
    }
    val conf = SQLConf.get
    val scanPlan = HBaseScanPlanner.plan(
      relation,
      columns,
      output,
      plain.reduceLeftOption(And),
      ScanSettings.of(conf),
      facts
    )
    val scan = HBaseSQLTableScan(output, scanPlan)
    val filtered = withSubqueries.reduceLeftOption(And).map(FilterExec(_, scan)).getOrElse(scan)
    val projected = if (projects.map(_.toAttribute) == filtered.output) filtered else ProjectExec(projects, filtered)
    (scanPlan, projected)
  }
}
