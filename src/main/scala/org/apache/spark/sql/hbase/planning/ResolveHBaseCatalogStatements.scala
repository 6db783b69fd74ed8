package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.analysis.ResolvedTable
import org.apache.spark.sql.catalyst.plans.logical.{DescribeRelation, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.connector.HBaseCatalogTable
import org.apache.spark.sql.hbase.execution.command.DescribeMappedTableCommand

/** Spark's own statements on a table of an HBase catalog that need more than the catalog API gives: DESCRIBE shows the mapping. */
object ResolveHBaseCatalogStatements extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case DescribeRelation(ResolvedTable(_, _, table: HBaseCatalogTable, _), _, _) =>
      DescribeMappedTableCommand(table.definition, table.cluster)
  }
}
