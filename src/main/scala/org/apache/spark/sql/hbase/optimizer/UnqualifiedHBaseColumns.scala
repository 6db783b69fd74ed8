// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import org.apache.spark.sql.catalyst.expressions.AttributeReference
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * Once names are resolved, an HBase table's columns are named bare again everywhere in the plan,
 * as its relation names them. A column keeps the name it was resolved through (`t.c`, `x.c` under
 * an alias, `hbase.t.c`), and Spark compares some orderings structurally, the qualifier included:
 * a scan whose tasks read key ranges in key order would not satisfy an ORDER BY of `t.k`, and the
 * rows would be sampled, shuffled and sorted again. EXPLAIN, too, would write the same read
 * differently by how the query named the table. Resolution of DataFrame columns later goes
 * through the analyzed plan, which keeps the names.
 */
object UnqualifiedHBaseColumns extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = {
    val columns = plan.collectWithSubqueries { case r: HBaseRelation => r.output.map(_.exprId) }.flatten.toSet
    if (columns.isEmpty) plan
    else plan.transformUpWithSubqueries { case node =>
      node.transformExpressions {
        case a: AttributeReference if a.qualifier.nonEmpty && columns(a.exprId) => a.withQualifier(Nil)
      }
    }
  }
}
