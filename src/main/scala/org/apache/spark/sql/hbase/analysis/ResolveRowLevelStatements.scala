// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.hbase.logical._
import org.apache.spark.sql.catalyst.analysis.TableOutputResolver
import org.apache.spark.sql.catalyst.expressions.{
  Alias, AttributeReference, Cast, Expression, Generator, Literal, WindowExpression
}
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment, DeleteFromTable, Filter, LogicalPlan, MergeIntoTable, Project, SubqueryAlias,
  UpdateTable, View
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.commands.{DeleteFromHBaseTableCommand, UpdateHBaseTableCommand}

/**
 * Spark parses DELETE and UPDATE itself, and plans them only for its v2 tables. Once the table
 * they name has resolved to one of ours (see [[ResolveHBaseRelations]]) and their expressions
 * have resolved, they become our commands, each with the query of the rows it changes; other
 * tables' statements are left to Spark.
 */
object ResolveRowLevelStatements extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case d @ DeleteFromTable(HBaseTarget(relation), condition) if d.resolved =>
      DeleteFromHBaseTableCommand(
        relation.table,
        relation.cluster,
        Project(relation.keyAttributes, matching(relation, Some(condition)))
      )
    case u @ UpdateTable(HBaseTarget(relation), assignments, condition) if u.resolved =>
      val targets = assignments.map(target(relation, s"UPDATE ${relation.table.name} SET"))
      refuseRepeatedColumns(s"UPDATE ${relation.table.name} SET", targets.map(_._1))
      UpdateHBaseTableCommand(
        relation.table,
        relation.cluster,
        targets.map(t => relation.columnOf(t._1)),
        newValuesOf(relation, targets, matching(relation, condition)),
        mergeInRegionServers = conf.getConf(HBaseSQLConf.PackedUpdateMerge),
        regionBatches = conf.getConf(HBaseSQLConf.PackedUpdateRegionBatches)
      )
    case u @ UpdateTable(HBaseTarget(relation), assignments, _) if u.table.resolved =>
      assignments.foreach(refuseUnstorableValue(s"UPDATE ${relation.table.name} SET"))
      u
    case DeleteFromTable(ViewOverHBase(view, table), _) => throw notOnAView("DELETE FROM", view, table)
    case UpdateTable(ViewOverHBase(view, table), _, _) => throw notOnAView("UPDATE", view, table)
    case m @ MergeIntoTable(HBaseTarget(relation), _, _, _, _, _, _) if m.resolved =>
      MergeIntoPlan(m, relation, conf)
    case MergeIntoTable(ViewOverHBase(view, table), _, _, _, _, _, _) => throw notOnAView("MERGE INTO", view, table)
  }

  /** `statement` names the statement and its clause, e.g. "UPDATE t SET". */
  private[analysis] def refuseRepeatedColumns(statement: String, columns: Seq[AttributeReference]): Unit =
    columns.groupBy(_.exprId).values.find(_.size > 1).foreach { repeated =>
      throw new HBaseSQLException(s"$statement ${repeated.head.name}: '${repeated.head.name}' is set more than once")
    }

  /** Spark has wrapped each value in a cast to its column's type; one that cannot be done is named here. */
  private[analysis] def refuseUnstorableValue(statement: String)(assignment: Assignment): Unit = assignment match {
    case Assignment(column: AttributeReference, cast: Cast) if cast.childrenResolved && !cast.resolved =>
      throw new HBaseSQLException(s"$statement ${column.name}: a value of type " +
        s"${cast.child.dataType.sql} cannot be stored in column '${column.name}' of type ${column.dataType.sql}")
    case _ =>
  }

  private def computedAcrossRows(e: Expression): Boolean = e match {
    case _: AggregateExpression | _: WindowExpression | _: Generator => true
    case _ => false
  }

  private[analysis] def notOnAView(statement: String, view: String, table: String) =
    new HBaseSQLException(s"$statement $view: '$view' is a view over HBase table '$table'; " +
      s"$statement names the table itself")

  private def matching(relation: HBaseRelation, condition: Option[Expression]): LogicalPlan =
    condition.filterNot(_ == Literal.TrueLiteral).fold[LogicalPlan](relation)(Filter(_, relation))

  /** An assignment of UPDATE's SET (`statement`, e.g. "UPDATE t SET"), checked: the column it sets, and its value. */
  private[analysis] def target(relation: HBaseRelation, statement: String)(
      assignment: Assignment
  ): (AttributeReference, Expression) = assignment.key match {
    case a: AttributeReference if relation.output.exists(_.exprId == a.exprId) =>
      val column = relation.columnOf(a)
      if (column.isKey) {
        throw new HBaseSQLException(
          s"$statement ${column.name}: '${column.name}' is a key column, and a row's key " +
            "is its identity in HBase; DELETE the row and INSERT it with the new key instead"
        )
      }
      column.writeTimeOf.foreach { cell =>
        throw new HBaseSQLException(
          s"$statement ${column.name}: '${column.name}' is the write time of cell $cell, " +
            "which HBase sets when the cell is written; it is read-only"
        )
      }
      if (assignment.value.exists(computedAcrossRows)) {
        throw new HBaseSQLException(s"$statement ${column.name}: the new value ${assignment.value.sql} is " +
          "computed across rows (an aggregate, window or generator); a scalar subquery can give such a value")
      }
      a -> assignment.value
    case other =>
      throw new HBaseSQLException(s"$statement ${other.sql}: only whole columns of the table can be set")
  }

  /** The key columns and the new values of the SET columns of `rows`, cast to their types as INSERT casts. */
  private[analysis] def newValuesOf(
      relation: HBaseRelation,
      targets: Seq[(AttributeReference, Expression)],
      rows: LogicalPlan
  ): LogicalPlan = {
    val query = Project(
      relation.keyAttributes ++ targets.map { case (attribute, value) => Alias(value, attribute.name)() },
      rows
    )
    val expected = relation.keyAttributes ++ targets.map(_._1.withNullability(true))
    TableOutputResolver.resolveOutputColumns(relation.table.name, expected, query, byName = false, conf)
  }

  /** The HBase table a statement writes, under an alias or not. */
  private[analysis] object HBaseTarget {
    def unapply(plan: LogicalPlan): Option[HBaseRelation] = plan match {
      case r: HBaseRelation => Some(r)
      case SubqueryAlias(_, named) => unapply(named) // the table's own name, and an alias over it
      case _ => None
    }
  }

  /** A view (its name) whose plan reads an HBase table (its name). */
  private object ViewOverHBase {
    def unapply(plan: LogicalPlan): Option[(String, String)] = plan match {
      case SubqueryAlias(name, view: View) =>
        view.collectFirst { case r: HBaseRelation => r.table.name }.map(name.name -> _)
      case SubqueryAlias(_, aliased) => unapply(aliased) // the statement's alias over the view
      case _ => None
    }
  }
}
