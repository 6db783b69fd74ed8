// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.catalyst.expressions.{
  Alias, And, Attribute, AttributeReference, CaseWhen, Cast, EqualNullSafe, EqualTo, Expression, IsNotNull, IsNull,
  Literal,
  PredicateHelper
}
import org.apache.spark.sql.catalyst.expressions.objects.AssertNotNull
import org.apache.spark.sql.catalyst.plans.{FullOuter, Inner, LeftOuter, RightOuter}
import org.apache.spark.sql.catalyst.plans.logical.{
  Assignment, DeleteAction, Filter, InsertAction, Join, JoinHint, LogicalPlan, MergeAction, MergeIntoTable, Project,
  UpdateAction
}
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.commands.{MergeIntoHBaseTableCommand, UpdateHBaseTableCommand}
import org.apache.spark.sql.hbase.commands.MergeIntoHBaseTableCommand.{ClauseWrite, Delete, Insert, Update}
import org.apache.spark.sql.hbase.logical.{HBaseRelation, InsertColumns}
import org.apache.spark.sql.internal.SQLConf

/**
 * A resolved MERGE INTO an HBase table as our command: the target's rows joined with the source's
 * on the merge condition (an outer join where NOT MATCHED clauses need the rows of one side alone),
 * each joined row given the number of the first clause, in the statement's order, whose kind of
 * row it is and whose condition holds; and for each clause, the rows it writes over those, as its
 * own statement would: the keys to delete, the keys and new values of an UPDATE's SET columns,
 * the whole rows of an INSERT.
 */
object MergeIntoPlan extends PredicateHelper {

  def apply(merge: MergeIntoTable, relation: HBaseRelation, conf: SQLConf): MergeIntoHBaseTableCommand = {
    val table = relation.table.name
    val inTarget = Alias(Literal.TrueLiteral, "merge_target_row")()
    val inSource = Alias(Literal.TrueLiteral, "merge_source_row")()
    val joinType = (merge.notMatchedActions.nonEmpty, merge.notMatchedBySourceActions.nonEmpty) match {
      case (true, true) => FullOuter
      case (true, false) => RightOuter
      case (false, true) => LeftOuter
      case (false, false) => Inner
    }
    val joined = Join(
      Project(merge.targetTable.output :+ inTarget, merge.targetTable),
      Project(merge.sourceTable.output :+ inSource, merge.sourceTable),
      joinType,
      Some(merge.mergeCondition),
      JoinHint.NONE
    )
    val (t, s) = (inTarget.toAttribute, inSource.toAttribute)
    val clauses: Seq[(MergeAction, Expression, String)] =
      merge.matchedActions.map((_, And(IsNotNull(t), IsNotNull(s)), "WHEN MATCHED")) ++
        merge.notMatchedActions.map((_, IsNull(t), "WHEN NOT MATCHED")) ++
        merge.notMatchedBySourceActions.map((_, IsNull(s), "WHEN NOT MATCHED BY SOURCE"))
    val clauseOf = Alias(
      CaseWhen(clauses.zipWithIndex.map { case ((action, rows, _), i) =>
        action.condition.fold(rows)(And(rows, _)) -> (Literal(i): Expression)
      }),
      "merge_clause"
    )()
    val clause = clauseOf.toAttribute
    val actions = Filter(IsNotNull(clause), Project(joined.output :+ clauseOf, joined))
    val writes = clauses.zipWithIndex.map { case ((action, _, kind), i) =>
      val statement = s"MERGE INTO $table $kind"
      val rows = Filter(EqualTo(clause, Literal(i)), actions)
      val matched = kind == "WHEN MATCHED"
      action match {
        case _: DeleteAction => ClauseWrite(i, Delete, Project(relation.keyAttributes, rows), matched)
        case UpdateAction(_, assignments, _) =>
          val set = s"$statement THEN UPDATE SET"
          assignments.foreach(ResolveRowLevelStatements.refuseUnstorableValue(set))
          val targets = assignments.filterNot(keptKey(relation, merge.mergeCondition))
            .map(ResolveRowLevelStatements.target(relation, set))
          ResolveRowLevelStatements.refuseRepeatedColumns(set, targets.map(_._1))
          if (targets.isEmpty) throw new HBaseSQLException(s"$set: no column besides the key is set")
          val values = ResolveRowLevelStatements.newValuesOf(relation, targets, rows)
          val update = UpdateHBaseTableCommand(
            relation.table,
            relation.cluster,
            targets.map(a => relation.columnOf(a._1)),
            values,
            mergeInRegionServers = conf.getConf(HBaseSQLConf.PackedUpdateMerge),
            regionBatches = conf.getConf(HBaseSQLConf.PackedUpdateRegionBatches)
          )
          ClauseWrite(i, Update(update), values, matched)
        case InsertAction(_, assignments) =>
          val names = assignments.map {
            case Assignment(a: AttributeReference, _) if relation.output.exists(_.exprId == a.exprId) =>
              relation.columnOf(a).name
            case Assignment(other, _) =>
              throw new HBaseSQLException(
                s"$statement THEN INSERT (${other.sql}): only columns of the table can be given"
              )
          }
          // Without Spark's check of a key's NULL: the command's own names the column before anything is written.
          val values = assignments.map(_.value match {
            case n: AssertNotNull => n.child
            case v => v
          })
          val query = Project(values.zip(names).map { case (v, name) => Alias(v, name)() }, rows)
          ClauseWrite(i, Insert, InsertColumns.align(relation, query, names, conf), matched)
        case other =>
          throw new HBaseSQLException(s"$statement: ${other.sql} is not supported on HBase tables")
      }
    }
    MergeIntoHBaseTableCommand(relation, actions, clause, writes, checksCardinality = merge.matchedActions.nonEmpty)
  }

  /**
   * An assignment of a key column to what the merge condition already makes it equal to (as
   * `UPDATE SET *` gives when the condition joins on the key): it leaves the row's key as it is.
   */
  private def keptKey(relation: HBaseRelation, condition: Expression)(assignment: Assignment): Boolean =
    assignment.key match {
      case a: Attribute if relation.keyAttributes.exists(_.exprId == a.exprId) =>
        splitConjunctivePredicates(condition).exists {
          case EqualTo(l, r) => sameKey(a, l, r, assignment.value)
          case EqualNullSafe(l, r) => sameKey(a, l, r, assignment.value)
          case _ => false
        }
      case _ => false
    }

  private def sameKey(key: Attribute, l: Expression, r: Expression, value: Expression): Boolean = {
    val assigned = bare(value)
    (l.semanticEquals(key) && bare(r).semanticEquals(assigned)) ||
    (r.semanticEquals(key) && bare(l).semanticEquals(assigned))
  }

  /** A value without what Spark wraps it in for its column: a cast to its type, a check that it is not NULL. */
  private def bare(value: Expression): Expression = value match {
    case c: Cast => bare(c.child)
    case n: AssertNotNull => bare(n.child)
    case v => v
  }
}
