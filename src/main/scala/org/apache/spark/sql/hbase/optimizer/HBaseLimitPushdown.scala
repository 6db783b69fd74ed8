// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import org.apache.spark.sql.catalyst.expressions.IntegerLiteral
import org.apache.spark.sql.catalyst.plans.logical.{LocalLimit, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * A LIMIT straight over an HBase table, with no filter between, caps what each region scan
 * reads: no region can contribute more rows than the limit. The Limit stays above the scan.
 */
object HBaseLimitPushdown extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan transform {
    case limit @ LocalLimit(IntegerLiteral(n), relation: HBaseRelation) if relation.limit.forall(_ > n) =>
      limit.copy(child = relation.copy(limit = Some(n)))
    case limit @ LocalLimit(IntegerLiteral(n), project @ Project(_, relation: HBaseRelation))
        if relation.limit.forall(_ > n) =>
      limit.copy(child = project.copy(child = relation.copy(limit = Some(n))))
  }
}
