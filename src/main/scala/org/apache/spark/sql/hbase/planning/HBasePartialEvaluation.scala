package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.catalyst.plans.logical.{Filter, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.hbase.codec.KeyCodec

/**
 * Partially evaluates a WHERE clause over an HBase table against its composite row key and
 * records the critical key ranges on the relation; the planner turns them into scan ranges.
 * The Filter stays; the scan checks what is left of it in each region (see [[ScanPlan]]).
 */
object HBasePartialEvaluation extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case filter @ Filter(condition, relation: HBaseRelation)
        if conf.getConf(HBaseSQLConf.Pushdown) && !relation.rangesFor.contains(condition) =>
      val codec = KeyCodec.forTable(relation.table)
      val ranges = KeyRangePlanner.plan(relation.prunableKeys, codec.prunableKeyColumns, codec.canRange,
        condition, conf.getConf(HBaseSQLConf.MaxKeyRanges))
      filter.copy(child = relation.copy(keyRanges = ranges, rangesFor = Some(condition)))
  }
}
