// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, InterpretedUnsafeProjection, NamedExpression, Predicate, RowOrdering, SortOrder
}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition}
import org.apache.spark.sql.execution.{
  FilterExec, InputAdapter, ProjectExec, SparkPlan, TakeOrderedAndProjectExec, UnaryExecNode, WholeStageCodegenExec
}
import org.apache.spark.sql.hbase.common.DescribedInExplain

/**
 * The first `limit` rows by `sortOrder` of a child that is an HBase scan, under at most
 * projections and filters (compiled or not), whose plan reads an ORDER BY ... LIMIT in a global index's order
 * ([[IndexOrderRead]]): a collect reads the rows the index names on the driver, passes them
 * through the child's projections and filters and takes Spark's top-n of them, without a job.
 * When the index cannot answer, and for every other use of the result, Spark's top-n of the scan
 * as planned.
 */
case class IndexOrderLimit(limit: Int, sortOrder: Seq[SortOrder], projectList: Seq[NamedExpression], child: SparkPlan)
    extends UnaryExecNode
    with DescribedInExplain[SparkPlan] {

  @transient private lazy val topN = TakeOrderedAndProjectExec(limit, sortOrder, projectList, child)

  override def output: Seq[Attribute] = projectList.map(_.toAttribute)
  override def outputOrdering: Seq[SortOrder] = sortOrder
  override def outputPartitioning: Partitioning = SinglePartition

  override def executeCollect(): Array[InternalRow] = IndexOrderLimit.scanOf(child).readInIndexOrder() match {
    case Some(rows) =>
      val ordering = RowOrdering.create(sortOrder, child.output)
      val project =
        InterpretedUnsafeProjection.createProjection(BindReferences.bindReferences(projectList, child.output))
      IndexOrderLimit.through(child, rows).sorted(ordering).take(limit).map(row => project(row).copy())
    case None => topN.executeCollect()
  }

  override def executeTake(n: Int): Array[InternalRow] = executeCollect().take(n)

  override protected def doExecute(): RDD[InternalRow] = topN.execute()

  override def simpleString(maxFields: Int): String =
    s"IndexOrderLimit $limit, in a global index's order [${sortOrder.map(_.sql).mkString(", ")}], " +
      s"output [${output.map(_.name).mkString(", ")}]"

  override protected def withNewChildInternal(newChild: SparkPlan): IndexOrderLimit = copy(child = newChild)
}

object IndexOrderLimit {

  /** The HBase scan at the bottom of `plan`, a chain of projections and filters over it. */
  def scanOf(plan: SparkPlan): HBaseTableScan = plan match {
    case scan: HBaseTableScan => scan
    case project: ProjectExec => scanOf(project.child)
    case filter: FilterExec => scanOf(filter.child)
    case codegen: WholeStageCodegenExec => scanOf(codegen.child)
    case input: InputAdapter => scanOf(input.child)
    case other => throw new IllegalArgumentException(s"no HBase scan under ${other.nodeName}")
  }

  /** `rows` of the scan under `plan` as `plan` returns them: projected and filtered, interpreted (they are few). */
  private def through(plan: SparkPlan, rows: Array[InternalRow]): Array[InternalRow] = plan match {
    case _: HBaseTableScan => rows
    case project: ProjectExec =>
      val projection = InterpretedUnsafeProjection.createProjection(
        BindReferences.bindReferences(project.projectList, project.child.output)
      )
      through(project.child, rows).map(row => projection(row).copy())
    case filter: FilterExec =>
      val predicate = Predicate.createInterpreted(BindReferences.bindReference(filter.condition, filter.child.output))
      through(filter.child, rows).filter(predicate.eval)
    case codegen: WholeStageCodegenExec => through(codegen.child, rows)
    case input: InputAdapter => through(input.child, rows)
    case other => throw new IllegalArgumentException(s"no HBase scan under ${other.nodeName}")
  }
}
