// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.catalyst.analysis.UnresolvedAttribute
import org.apache.spark.sql.catalyst.expressions.{Expression, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, SubqueryAlias, UnresolvedHint}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.logical.{HBaseRelation, IndexHint}

/**
 * The hints `/*+ INDEX(t, i [, j ...]) */` and `/*+ NO_INDEX(t) */`: each goes onto the HBase
 * table it names, by its alias or its name, in the part of the query the hint heads. A hint that
 * names no HBase table there, or an index the table does not have, is refused, naming it; Spark
 * would drop it with only a warning, and the query would read otherwise than asked.
 */
object ResolveIndexHints extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case UnresolvedHint(name, parameters, child) if isOurs(name) && child.resolved =>
      val hint = s"$name(${parameters.map(text).mkString(", ")})"
      val (table, hinted) = name.toUpperCase(java.util.Locale.ROOT) match {
        case IndexHint.IndexName if parameters.size >= 2 =>
          (text(parameters.head), IndexHint.Use(parameters.tail.map(text)))
        case IndexHint.NoIndexName if parameters.size == 1 => (text(parameters.head), IndexHint.NoIndex)
        case _ => throw new HBaseSQLException(
            s"hint $hint: give INDEX(table, index [, index ...]) or NO_INDEX(table)"
          )
      }
      var matched = false
      def mark(relation: HBaseRelation): HBaseRelation = {
        matched = true
        hinted match {
          case IndexHint.Use(indexes) =>
            indexes.find(i => relation.table.globalIndex(i).isEmpty).foreach { i =>
              throw new HBaseSQLException(s"hint $hint: table '${relation.table.name}' has no global index '$i'")
            }
          case _ =>
        }
        relation.copy(indexHint = hinted)
      }
      val marked = child.transformDown {
        case SubqueryAlias(alias, relation: HBaseRelation) if alias.name.equalsIgnoreCase(table) =>
          SubqueryAlias(alias, mark(relation))
        case SubqueryAlias(alias, SubqueryAlias(inner, relation: HBaseRelation))
            if alias.name.equalsIgnoreCase(table) =>
          SubqueryAlias(alias, SubqueryAlias(inner, mark(relation)))
        case relation: HBaseRelation if relation.table.name.equalsIgnoreCase(table) => mark(relation)
      }
      if (!matched) throw new HBaseSQLException(s"hint $hint: the query reads no HBase table named '$table'")
      marked
  }

  private def isOurs(name: String): Boolean =
    Set(IndexHint.IndexName, IndexHint.NoIndexName).contains(name.toUpperCase(java.util.Locale.ROOT))

  private def text(parameter: Any): String = parameter match {
    case a: UnresolvedAttribute => a.nameParts.last
    case Literal(value, _) => String.valueOf(value)
    case e: Expression => e.sql
    case other => String.valueOf(other)
  }
}
