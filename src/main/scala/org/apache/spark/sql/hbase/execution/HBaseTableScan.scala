// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.collection.mutable

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, BindReferences, Descending, Expression, InterpretedUnsafeProjection, SortOrder, UnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.physical.{
  Partitioning, RangePartitioning, SinglePartition, UnknownPartitioning
}
import org.apache.spark.sql.execution.{InSubqueryExec, LeafExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.common.DescribedInExplain
import org.apache.spark.sql.hbase.planner.{
  IndexAggregatePlan, IndexAnswer, IndexLookup, JoinKeys, RegionScan, TableScanPlan
}

/**
 * Carries out a finished [[TableScanPlan]]: one Spark partition per region it reads (or per
 * aligned key range, or per task's regions), in region order, each reading its regions' part of
 * the ranges, keeping the rows that pass what is left of the WHERE clause there, and returning
 * their `output` columns.
 *
 * When the plan says so, a collect runs on the driver without a job (see
 * `spark.sql.hbase.driverRead.maxKeyRanges`): a lookup then costs HBase round trips, not a job.
 *
 * `keysFromJoin`, a subquery Spark runs before the scan, gives the values of the leading key
 * column that the other side of a join holds, exactly when the plan has the step that narrows
 * its rows to them at run time ([[JoinKeys]]): the node hands the values over, and decides
 * nothing else.
 */
case class HBaseTableScan(
    output: Seq[Attribute],
    plan: TableScanPlan,
    keysFromJoin: Option[Expression] = None,
    indexAggregate: Option[IndexAggregatePlan] = None
) extends LeafExecNode
    with ScansHBase
    with DescribedInExplain[SparkPlan] {

  require(
    keysFromJoin.isDefined == plan.joinKeys.isDefined,
    "a scan has the join's keys exactly when its plan narrows its rows to them"
  )

  override lazy val metrics: Map[String, SQLMetric] = ReadMetrics.create(sparkContext, "rows read from HBase")

  private def read: Seq[Attribute] = plan.request.read

  /** HBase returns a region's rows in row key order, which is SQL order when the codec keeps it. */
  override def outputOrdering: Seq[SortOrder] =
    plan.keyOrder.map(SortOrder(_, if (plan.request.reversed) Descending else Ascending))

  /**
   * Regions come in key order, so on the whole key the partitions are ranges of it. On a part
   * of the key they are not: one value may straddle two regions. Aligned with another scan,
   * they are ranges of the leading key column's values.
   */
  override def outputPartitioning: Partitioning = plan.partitions.size match {
    case _ if plan.alignment.isDefined => KeyRangePartitioning(plan.keyOrder.head, plan.alignment.get)
    case 1 => SinglePartition
    case n if plan.wholeKey => RangePartitioning(outputOrdering, n)
    case n => UnknownPartitioning(n)
  }

  override protected def doExecute(): RDD[InternalRow] = rowsOf(Option(taken.getAndSet(null)).getOrElse(runtimePlan))

  /** A run-time plan that [[collectOnDriver]] took and left to a job: that job reads it rather than take it again. */
  @transient private lazy val taken = new java.util.concurrent.atomic.AtomicReference[TableScanPlan]()

  private def rowsOf(plan: TableScanPlan): RDD[InternalRow] = {
    reportPlan(plan)
    val rows = new HBaseScanRDD(sparkContext, plan.request, plan.partitions, ReadMetrics.of(metrics))
    val (outputColumns, readColumns) = (output, read)
    rows.mapPartitionsWithIndexInternal { (index, iter) =>
      val project = UnsafeProjection.create(outputColumns, readColumns)
      project.initialize(index)
      iter.map(project)
    }
  }

  override def executeCollect(): Array[InternalRow] =
    if (plan.driverRead) readOnDriver(Int.MaxValue) else CollectedRows.of(execute(), output.size)

  override def executeTake(n: Int): Array[InternalRow] =
    if (plan.driverRead) readOnDriver(n)
    else CollectedRows.take(
      execute(),
      output.size,
      n,
      conf.limitInitialNumPartitions,
      math.max(conf.limitScaleUpFactor, 2)
    )

  /**
   * `onDriver` of every row, read on the driver, when the plan with its run-time steps taken still
   * says a collect reads there; otherwise (an index named more rows than its lookup takes) `inAJob`,
   * whose execution of this scan reads the plan already taken: the index is read once.
   */
  def collectOnDriver[T](onDriver: Array[InternalRow] => T, inAJob: => T): T = executeQuery {
    val plan = runtimePlan
    if (plan.driverRead) onDriver(readOnDriver(plan, Int.MaxValue))
    else {
      taken.set(plan)
      try inAJob
      finally taken.set(null)
    }
  }

  /** Regions are read in parallel for a collect, one after another for a take. */
  private def readOnDriver(maxRows: Int): Array[InternalRow] = executeQuery {
    val plan = runtimePlan
    // An index that named more rows than its lookup takes leaves the plan as it was without it.
    if (plan.driverRead) readOnDriver(plan, maxRows)
    else CollectedRows.of(rowsOf(plan), output.size, maxRows).take(maxRows)
  }

  private def readOnDriver(plan: TableScanPlan, maxRows: Int): Array[InternalRow] = {
    reportPlan(plan)
    val regions = plan.driverReadOrder
    val counted = regions.map(_ => ReadMetrics.local())
    val scanRequest = plan.request
    // Interpreted: generating code for a few rows would cost more than projecting them.
    val bound = BindReferences.bindReferences(output, read)
    def readRegion(region: RegionScan, index: Int, max: Int): Array[InternalRow] = {
      val project = InterpretedUnsafeProjection.createProjection(bound)
      // A region read without the server jar after all opens a second scanner.
      val closes = mutable.ArrayBuffer.empty[() => Unit]
      try {
        HBaseScanRDD.readRegion(scanRequest, region, index, counted(index), closes += _, fewRows = true)
          .take(max).map(row => project(row).copy()).toArray
      } finally closes.foreach(_.apply())
    }
    // Only regions with ranges to read call HBase; those with covered rows alone are read here.
    val rows =
      if (maxRows == Int.MaxValue && regions.count(_.ranges.nonEmpty) > 1) {
        HBaseTableScan.driverReads.all(regions.zipWithIndex.map { case (r, i) => () => readRegion(r, i, maxRows) })
          .flatten.toArray
      } else {
        val out = Array.newBuilder[InternalRow]
        var taken = 0
        regions.zipWithIndex.foreach { case (r, i) =>
          if (taken < maxRows) { val part = readRegion(r, i, maxRows - taken); out ++= part; taken += part.length }
        }
        out.result()
      }
    val total = ReadMetrics.of(metrics)
    counted.foreach(total.add)
    ReadMetrics.postDriverMetrics(
      sparkContext,
      metrics,
      Seq("rowsRead", "rowsScanned", "gets", "badRowKeys", "memoryFlushes")
    )
    rows
  }

  /**
   * The rows of the plan's ORDER BY ... LIMIT, read on the driver in its global index's order
   * ([[IndexOrderRead]]); None when the index could not answer, and the scan reads as planned.
   */
  def readInIndexOrder(): Option[Array[InternalRow]] = executeQuery {
    val read = IndexOrderRead(plan, output, narrowed => readOnDriver(narrowed, Int.MaxValue))
    ReadMetrics.reportIndexOrder(sparkContext, metrics, read)
    read.rows
  }

  /**
   * The rows of `aggregation` over this scan, with the partial aggregation the covering index's
   * region servers computed over the rows it vouches for ([[IndexAggregateRead]]) and the other
   * rows it names read from the data table and aggregated here. None when the plan has no such
   * aggregation for it, or when the index's answer cannot be trusted (as a whole: then the scan
   * reads through the index as planned).
   */
  def aggregateThroughIndex(aggregation: RowsAggregation): Option[Array[InternalRow]] =
    indexAggregate.filter(a => aggregation.steps.isEmpty && a.answers(aggregation.grouping, aggregation.functions))
      .zip(plan.indexLookup).flatMap { case (through, lookup) =>
        executeQuery {
          IndexAggregateRead(plan.request.cluster, plan.request.table, lookup, through).map { read =>
            ReadMetrics.reportIndexAggregate(sparkContext, metrics, read)
            val checked =
              if (read.toCheck.isEmpty) Array.empty[InternalRow]
              else readOnDriver(IndexLookup.narrow(plan, Some(IndexAnswer(read.toCheck, Nil))), Int.MaxValue)
            aggregation(checked.iterator, read.partials)
          }
        }
      }

  /** The scan whose rows the join's keys narrow at run time, at most `maxKeys` of them (see [[JoinKeys]]). */
  def withKeysFromJoin(keys: Expression, maxKeys: Int, throughIndex: Option[IndexLookup] = None): HBaseTableScan =
    copy(plan = plan.withJoinKeys(maxKeys, throughIndex), keysFromJoin = Some(keys))

  /**
   * The plan with its run-time steps taken, anew for each execution: the keys its global index
   * names now, and the join's keys.
   */
  private def runtimePlan: TableScanPlan = {
    val joined = withJoinKeys
    joined.indexLookup.fold(joined) { lookup =>
      val read = IndexKeysRead(joined.request.cluster, joined.request.table, lookup)
      ReadMetrics.reportIndexRead(sparkContext, metrics, read)
      IndexLookup.narrow(joined, read.answer)
    }
  }

  /** The plan with its run-time step taken: the join's keys, once Spark has run their subquery, handed to it. */
  private def withJoinKeys: TableScanPlan = keysFromJoin match {
    case Some(keys: InSubqueryExec) =>
      val values = keys.values().getOrElse(throw new IllegalStateException("the join's keys were never computed"))
      JoinKeys.narrow(plan, scala.collection.immutable.ArraySeq.unsafeWrapArray(values))
    case _ => plan
  }

  private def reportPlan(plan: TableScanPlan): Unit = ReadMetrics.reportPlan(sparkContext, metrics, plan)

  // Spark asks for it several times a statement (the SQL execution's plan, the UI's, EXPLAIN).
  @transient private lazy val described = plan.describe + indexAggregate.fold("")(a => s", ${a.describe}")

  override def simpleString(maxFields: Int): String = described
}

object HBaseTableScan {

  /** Threads that read regions for lookups collected on the driver; idle ones end after a minute. */
  private val driverReads = new ParallelReads("hbase-driver-read", 8)

}
