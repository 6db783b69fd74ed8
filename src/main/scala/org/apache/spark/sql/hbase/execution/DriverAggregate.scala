// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.collection.mutable

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, Expression, InterpretedMutableProjection, InterpretedOrdering,
  InterpretedUnsafeProjection, JoinedRow, NamedExpression, Predicate, SortOrder, UnsafeRow
}
import org.apache.spark.sql.catalyst.expressions.aggregate.DeclarativeAggregate
import org.apache.spark.sql.catalyst.plans.physical.Partitioning
import org.apache.spark.sql.execution.{SparkPlan, UnaryExecNode}
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * What an aggregate over an HBase scan does to the scan's rows, taken apart so that the driver
 * can do it: `steps` (filters and projections, from the scan up), then the groups of `grouping`
 * and the `functions` over each, then `results` over the grouping values and the functions'
 * values (`resultInputs`), then `after` (a HAVING's filter, projections, an ORDER BY's sort).
 * Interpreted: a lookup's few rows do not repay generating code.
 */
final case class RowsAggregation(
    input: Seq[Attribute],
    steps: Seq[RowsAggregation.Step],
    grouping: Seq[NamedExpression],
    functions: Seq[DeclarativeAggregate],
    resultInputs: Seq[Attribute],
    results: Seq[NamedExpression],
    after: Seq[RowsAggregation.Step] = Nil
) {

  /** The same, then `step` over its result rows. */
  def andThen(step: RowsAggregation.Step): RowsAggregation = copy(after = after :+ step)

  /**
   * The result rows of the aggregate over `rows` (the scan's `input`) and `partials`, rows of
   * Spark's partial aggregation of other rows (grouping values, then the functions' buffers).
   */
  def apply(rows: Iterator[InternalRow], partials: Seq[InternalRow] = Nil): Array[InternalRow] = {
    val (stepped, attributes) = RowsAggregation.take(steps, rows, input)
    val buffers = functions.flatMap(_.aggBufferAttributes)
    val groupKey = InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(grouping, attributes))
    val initial = new InterpretedMutableProjection(functions.flatMap(_.initialValues))
    val update = new InterpretedMutableProjection(
      BindReferences.bindReferences(functions.flatMap(_.updateExpressions), buffers ++ attributes)
    )
    val groups = mutable.LinkedHashMap.empty[UnsafeRow, InternalRow]
    def fresh(): InternalRow = initial(InternalRow.empty).copy()
    val joined = new JoinedRow
    if (partials.nonEmpty) {
      val partialGrouping = grouping.map(_.toAttribute)
      val partialKey = InterpretedUnsafeProjection.createProjection(
        BindReferences.bindReferences(partialGrouping, partialGrouping ++ functions.flatMap(_.inputAggBufferAttributes))
      )
      val merge = new InterpretedMutableProjection(BindReferences.bindReferences(
        functions.flatMap(_.mergeExpressions),
        buffers ++ partialGrouping ++ functions.flatMap(_.inputAggBufferAttributes)
      ))
      partials.foreach { partial =>
        val buffer = groups.getOrElseUpdate(partialKey(partial).copy(), fresh())
        merge.target(buffer)
        merge(joined(buffer, partial))
      }
    }
    stepped.foreach { row =>
      val buffer = groups.getOrElseUpdate(groupKey(row).copy(), fresh())
      update.target(buffer)
      update(joined(buffer, row))
    }
    // A global aggregate of no rows is one row of the functions' values over none.
    if (grouping.isEmpty && groups.isEmpty) groups.put(groupKey(InternalRow.empty).copy(), fresh())
    val evaluate = InterpretedUnsafeProjection.createProjection(
      BindReferences.bindReferences(functions.map(_.evaluateExpression), buffers)
    )
    val result =
      InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(results, resultInputs))
    val aggregated = groups.iterator.map { case (key, buffer) => result(joined(key, evaluate(buffer))).copy() }
    RowsAggregation.take(after, aggregated, results.map(_.toAttribute))._1.map(_.copy()).toArray
  }
}

object RowsAggregation {

  /** What happens to the rows between the scan and the aggregate, or to the aggregate's rows. */
  sealed trait Step
  final case class Filter(condition: Expression) extends Step
  final case class Project(list: Seq[NamedExpression]) extends Step
  final case class Sort(order: Seq[SortOrder]) extends Step

  /** The expressions a step evaluates. */
  def expressions(step: Step): Seq[Expression] = step match {
    case Filter(condition) => Seq(condition)
    case Project(list) => list
    case Sort(order) => order
  }

  /** `steps` over `rows` of the columns `from`: the rows they leave, and their columns. */
  private def take(
      steps: Seq[Step],
      rows: Iterator[InternalRow],
      from: Seq[Attribute]
  ): (Iterator[InternalRow], Seq[Attribute]) =
    steps.foldLeft((rows, from)) {
      case ((in, from), Filter(condition)) =>
        val keep = Predicate.createInterpreted(BindReferences.bindReference(condition, from))
        (in.filter(keep.eval), from)
      case ((in, from), Project(list)) =>
        val project = InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(list, from))
        (in.map(project), list.map(_.toAttribute))
      case ((in, from), Sort(order)) =>
        val ordering = new InterpretedOrdering(BindReferences.bindReferences(order, from))
        // A projection's rows share its buffer: each is copied before it is kept.
        (in.map(_.copy()).toArray.sorted(ordering).iterator, from)
    }
}

/**
 * An aggregate whose input is an HBase scan that a collect reads on the driver, with what
 * follows it in the same partition (a HAVING, an ORDER BY): a collect reads the scan there and
 * aggregates its rows there too, without a Spark job, which costs more than the aggregate of a
 * lookup's rows. When the scan's run-time steps leave it read by a job after all (that job
 * reads the steps' plan, not taking them again), and for any other use, the aggregate is
 * `child`, Spark's own.
 */
case class DriverAggregate(aggregation: RowsAggregation, child: SparkPlan) extends UnaryExecNode
    with DescribedInExplain[SparkPlan] {

  override def output: Seq[Attribute] = child.output
  override def outputPartitioning: Partitioning = child.outputPartitioning
  override def outputOrdering: Seq[SortOrder] = child.outputOrdering

  override def executeCollect(): Array[InternalRow] =
    scan.aggregateThroughIndex(aggregation).getOrElse(
      scan.collectOnDriver(rows => aggregation(rows.iterator), child.executeCollect())
    )

  override def executeTake(n: Int): Array[InternalRow] = executeCollect().take(n)

  override protected def doExecute(): RDD[InternalRow] = child.execute()

  // Found when needed: Spark's later rules wrap the aggregate in whole-stage code generation.
  private def scan: HBaseTableScan = child.collectFirst { case s: HBaseTableScan => s }
    .getOrElse(throw new IllegalStateException("an aggregate on the driver has no HBase scan under it"))

  override def simpleString(maxFields: Int): String =
    "DriverAggregate, on the driver when a collect reads its scan there"

  override protected def withNewChildInternal(newChild: SparkPlan): DriverAggregate = copy(child = newChild)
}
