package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, AttributeSet, Expression, NamedExpression, SubqueryExpression}
import org.apache.spark.sql.catalyst.planning.PhysicalOperation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{FilterExec, ProjectExec, SparkPlan, SparkStrategy}
import org.apache.spark.sql.hbase.execution.{HBaseSQLTableScan, LiveTableFacts}
import org.apache.spark.sql.internal.SQLConf

/**
 * Plans a projection and filter over an HBase table as an `HBaseSQLTableScan` of a finished
 * [[TableScanPlan]]. Conjuncts with subqueries stay in a Filter above the scan, where Spark runs
 * their subqueries first.
 */
object HBaseStrategy extends SparkStrategy {
  override def apply(plan: LogicalPlan): Seq[SparkPlan] = plan match {
    case PhysicalOperation(projects, filters, relation: HBaseRelation) =>
      planScan(projects, filters, relation) :: Nil
    case _ => Nil
  }

  private def planScan(projects: Seq[NamedExpression], filters: Seq[Expression], relation: HBaseRelation): SparkPlan = {
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
    val scanPlan = HBaseScanPlanner.plan(relation, columns, output, plain.reduceLeftOption(And),
      ScanSettings.of(conf), LiveTableFacts(relation, conf))
    val scan = HBaseSQLTableScan(output, scanPlan)
    val filtered = withSubqueries.reduceLeftOption(And).map(FilterExec(_, scan)).getOrElse(scan)
    if (projects.map(_.toAttribute) == filtered.output) filtered else ProjectExec(projects, filtered)
  }
}
