package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.catalog.{HBaseTableDef, TableFormat}
import org.apache.spark.sql.types.{BinaryType, StringType}

/**
 * Partially evaluates a WHERE clause over an HBase table against its composite row key and
 * records the critical key ranges on the relation; the planner turns them into scan ranges.
 * The Filter stays: Spark still checks every row the ranges let through.
 */
object HBasePartialEvaluation extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case filter @ Filter(condition, relation: HBaseRelation)
        if conf.getConf(HBaseSQLConf.Pushdown) && !relation.rangesFor.contains(condition) =>
      val table = relation.table
      val ranges = KeyRangePlanner.plan(relation.keyAttributes, usableKeyColumns(table), canRange(table),
        condition, conf.getConf(HBaseSQLConf.MaxKeyRanges))
      filter.copy(child = relation.copy(keyRanges = ranges, rangesFor = Some(condition)))
  }

  /** StringFormat keys are text: only leading string columns compare by value as their bytes do. */
  private def usableKeyColumns(table: HBaseTableDef): Int = table.format match {
    case TableFormat.Binary => table.keys.size
    case _: TableFormat.StringFormat => table.keys.takeWhile(k => k.dataType == StringType || k.dataType == BinaryType).size
  }

  /** A text key column that the delimiter follows does not sort by value; the last one does. */
  private def canRange(table: HBaseTableDef): Int => Boolean = table.format match {
    case TableFormat.Binary => _ => true
    case _: TableFormat.StringFormat => dim => dim == table.keys.size - 1
  }
}
