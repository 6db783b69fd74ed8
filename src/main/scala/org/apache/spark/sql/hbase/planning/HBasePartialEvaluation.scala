package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule

/**
 * Partially evaluates a WHERE clause against the composite row key. For now it recognises the
 * shape it will rewrite and leaves it to Spark, which evaluates the whole filter.
 */
object HBasePartialEvaluation extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case filter @ Filter(_, _: HBaseRelation) => filter
  }
}
