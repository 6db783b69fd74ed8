// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Repartition, Sort}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.adaptive.LogicalQueryStage
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.internal.SQLConf
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * An ORDER BY of a few rows (a GROUP BY's groups, say) over HBase tables sorts them in one task.
 * Spark plans a global sort as a shuffle into ranges of the sort key, which first runs a job to
 * sample the rows for the ranges' bounds: two jobs and a stage more, to sort a handful of rows.
 * Once adaptive execution has run the stages below the sort, their output size is known; when it
 * is at most `spark.sql.hbase.sort.oneTaskMaxBytes`, the sort's input is coalesced into one
 * partition instead, which needs no shuffle, and the rows are sorted where they are.
 *
 * A runtime rule of adaptive execution: before any stage has run, nothing is known of the sizes,
 * and a plan without HBase tables is left as Spark made it.
 */
object SmallSortsInOneTask extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    val maxBytes = SQLConf.get.getConf(HBaseSQLConf.SortOneTaskMaxBytes)
    if (maxBytes <= 0 || !readsHBase(plan)) plan
    else plan.transformDown {
      case sort @ Sort(_, true, child, _) if !isOnePartition(child) && knownSmall(child, maxBytes) =>
        sort.copy(child = Repartition(1, shuffle = false, child))
    }
  }

  /** The input's size as the stages that ran measured it: some stage below has run, and none is still to run. */
  private def knownSmall(child: LogicalPlan, maxBytes: Long): Boolean =
    child.exists(_.isInstanceOf[LogicalQueryStage]) &&
      child.collectLeaves().forall(_.isInstanceOf[LogicalQueryStage]) &&
      child.stats.sizeInBytes <= maxBytes

  private def isOnePartition(plan: LogicalPlan): Boolean = plan match {
    case Repartition(1, _, _) => true
    case _ => false
  }

  private def readsHBase(plan: LogicalPlan): Boolean = plan.exists {
    case _: HBaseRelation => true
    case stage: LogicalQueryStage => readsHBase(stage.logicalPlan)
    case _ => false
  }
}
