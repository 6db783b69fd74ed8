// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.optimizer

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, AttributeSet, Cast, Coalesce, EqualTo, EvalMode, Expression, If, IsNull, Literal, Multiply,
  NamedExpression, Or, PredicateHelper
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Complete, Count, Max, Min, Sum}
import org.apache.spark.sql.catalyst.planning.PhysicalOperation
import org.apache.spark.sql.catalyst.plans.Inner
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Join, JoinHint, LogicalPlan, Project}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.types.{DataType, DecimalType, DoubleType, FloatType, IntegralType, LongType}

/**
 * A GROUP BY over an inner join of two HBase tables on their leading key columns, where one
 * table may hold many rows per key value (its key has more columns), aggregates that table's
 * rows per key value first (eager aggregation): the join then meets one row per key instead of
 * many, and the region servers send groups rather than rows. Where they cannot aggregate the
 * scan after all (a condition only Spark checks), the join's tasks do, since a join merged by key
 * ([[org.apache.spark.sql.hbase.physical.MergeJoinsByKey]]) reads all rows of a key value in one
 * partition; with the coprocessor or pushdown turned off, it does not apply.
 *
 * It applies when the query groups by columns of the other table (or the key) only, the join's
 * other conditions read no other column of the aggregated table, and each aggregate is one it
 * can split exactly: on the aggregated table's columns `count`, `sum`, `min` and `max` of a
 * partial of them; on the other table's, `sum(v)` as `sum(v * rows)` and `count(v)` as the sum
 * of the rows where `v` is not NULL, `min` and `max` as they are. Anything else (DISTINCT,
 * FILTER, `avg`, other functions, an expression over both tables, a DECIMAL over 17 digits
 * multiplied), a join hint, or a side small enough for Spark to broadcast leaves the query as it
 * is. Runs once, after Spark has pushed filters and pruned columns.
 */
object AggregatesBelowKeyedJoins extends Rule[LogicalPlan] with PredicateHelper {

  override def apply(plan: LogicalPlan): LogicalPlan = {
    // Only where the region servers may aggregate: grouped in Spark, the rows cost more than the join
    // saves (`./benchmarks/run aggregate_below`: the keyed join at scale 0.1 grouped in the region servers
    // took 0.83 times as long as with the aggregate above the join; in the join's tasks, 1.09 times).
    val enabled = Seq(
      HBaseSQLConf.AggregateBelowMergedJoin,
      HBaseSQLConf.MergeJoinByKey,
      HBaseSQLConf.Coprocessor,
      HBaseSQLConf.Pushdown
    ).forall(conf.getConf(_))
    if (!enabled) plan
    else plan.transformUp { case aggregate: Aggregate => eager(aggregate).getOrElse(aggregate) }
  }

  /** One side of the join: its plan, the leading key attribute it joins on, and how many key columns its table has. */
  private case class Side(plan: LogicalPlan, key: Attribute, keyColumns: Int)

  private def eager(aggregate: Aggregate): Option[LogicalPlan] = {
    val join = aggregate.child match {
      case Project(list, join: Join) if list.forall(_.isInstanceOf[Attribute]) => join
      case join: Join => join
      case _ => return None
    }
    join match {
      case Join(left, right, Inner, Some(condition), JoinHint.NONE) if !broadcastBySize(join) =>
        val conjuncts = splitConjunctivePredicates(condition)
        val keyed = conjuncts.iterator.flatMap {
          case equal @ EqualTo(a: Attribute, b: Attribute) =>
            def sides(l: Attribute, r: Attribute) =
              for { ls <- side(left, l); rs <- side(right, r) if l.dataType == r.dataType } yield (ls, rs, equal)
            sides(a, b).orElse(sides(b, a))
          case _ => None
        }
        keyed.nextOption().flatMap { case (l, r, equal) =>
          val rest = conjuncts.filterNot(_ eq equal)
          // The side with more rows per key is aggregated: first one whose other side has a key of one column.
          Seq((l, r), (r, l)).filter(_._1.keyColumns > 1).sortBy(_._2.keyColumns).iterator
            .flatMap { case (many, other) => rewritten(aggregate, join, many, other, rest) }.nextOption()
        }
      case _ => None
    }
  }

  /** A join Spark broadcasts a side of, as its size lets it: not one merged by key, where the groups' shuffle would be a shuffle more. */
  private def broadcastBySize(join: Join): Boolean = {
    val threshold = conf.autoBroadcastJoinThreshold
    threshold >= 0 && Seq(join.left, join.right).exists(_.stats.sizeInBytes <= threshold)
  }

  /** `plan` as an HBase table read (under filters and projections) whose leading key column `key` is. */
  private def side(plan: LogicalPlan, key: Attribute): Option[Side] = plan match {
    case PhysicalOperation(_, _, relation: HBaseRelation)
        if relation.prunableKeys.headOption.exists(_.exprId == key.exprId) && plan.outputSet.contains(key) =>
      Some(Side(plan, key, relation.table.keys.size))
    case _ => None
  }

  private def rewritten(
      aggregate: Aggregate,
      join: Join,
      many: Side,
      other: Side,
      rest: Seq[Expression]
  ): Option[LogicalPlan] = {
    val manyColumns = many.plan.outputSet
    val otherColumns = other.plan.outputSet
    val visible = otherColumns ++ AttributeSet(many.key)
    val aggregates = aggregate.aggregateExpressions.flatMap(_.collect { case a: AggregateExpression => a })
    val outsideAggregates = aggregate.aggregateExpressions.flatMap(e => referencesOutside(e))
    val readable = aggregate.groupingExpressions.forall(g => g.deterministic && g.references.subsetOf(visible)) &&
      rest.forall(_.references.subsetOf(visible)) && outsideAggregates.forall(visible.contains)
    if (!readable || aggregates.isEmpty) return None

    val partials = mutable.LinkedHashMap.empty[Expression, Alias]
    def partial(function: Expression): Attribute =
      partials.getOrElseUpdate(function.canonicalized, Alias(function, s"partial_${partials.size}")()).toAttribute
    def rows: Attribute = partial(Count(Seq(Literal(1))).toAggregateExpression())
    def total(e: Expression, like: Sum) = Sum(e, like.evalContext).toAggregateExpression()
    def count(e: Expression) = Coalesce(Seq(Sum(e).toAggregateExpression(), Literal(0L)))

    def split(a: AggregateExpression): Option[Expression] = {
      val onMany = a.references.nonEmpty && a.references.subsetOf(manyColumns)
      val onOther = a.references.subsetOf(otherColumns)
      if (a.isDistinct || a.filter.isDefined || a.mode != Complete || !a.deterministic) None
      else a.aggregateFunction match {
        case Count(values) if values.forall(v => v.foldable && v.eval() != null) => Some(count(rows))
        case _: Count if onMany => Some(count(partial(a)))
        case Count(values) if onOther =>
          Some(count(If(values.map(IsNull(_): Expression).reduce(Or), Literal(0L), rows)))
        case sum @ Sum(_, context) if context.evalMode != EvalMode.TRY && onMany =>
          Some(cast(total(partial(a), sum), sum.dataType, context.evalMode))
        case sum @ Sum(value, context) if context.evalMode != EvalMode.TRY && onOther =>
          (value.dataType match {
            case _: IntegralType => Some(Multiply(cast(value, LongType, context.evalMode), rows, context))
            case FloatType | DoubleType =>
              Some(Multiply(
                cast(value, DoubleType, context.evalMode),
                cast(rows, DoubleType, context.evalMode),
                context
              ))
            // Times a count's 20 digits, without a digit of the scale lost.
            case d: DecimalType if d.precision <= DecimalType.MAX_PRECISION - 21 =>
              Some(Multiply(value, cast(rows, DecimalType(20, 0), context.evalMode), context))
            case _ => None
          }).map(product => cast(total(product, sum), sum.dataType, context.evalMode))
        case Min(_) if onMany => Some(Min(partial(a)).toAggregateExpression())
        case Max(_) if onMany => Some(Max(partial(a)).toAggregateExpression())
        case Min(_) | Max(_) if onOther => Some(a)
        case _ => None
      }
    }

    val splits = aggregates.map(a => a -> split(a))
    if (splits.exists(_._2.isEmpty)) return None
    val replacement = splits.map { case (a, s) => a.canonicalized -> s.get }.toMap
    val outputs = aggregate.aggregateExpressions.map(_.transformUp {
      case a: AggregateExpression => replacement(a.canonicalized)
    }.asInstanceOf[NamedExpression])
    val grouped = Aggregate(Seq(many.key), many.key +: partials.values.toSeq, many.plan)
    val joined =
      if (many.plan eq join.left) join.copy(left = grouped) else join.copy(right = grouped)
    Some(aggregate.copy(aggregateExpressions = outputs, child = joined))
  }

  /** The attributes an output reads outside its aggregate functions: those of the grouping. */
  private def referencesOutside(e: Expression): Seq[Attribute] = e match {
    case _: AggregateExpression => Nil
    case a: Attribute => Seq(a)
    case other => other.children.flatMap(referencesOutside)
  }

  private def cast(e: Expression, to: DataType, mode: EvalMode.Value): Expression =
    if (e.dataType == to) e
    else
      Cast(e, to, Some(conf.sessionLocalTimeZone), if (mode == EvalMode.ANSI) EvalMode.ANSI else EvalMode.LEGACY)
}
