// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{Result, Scan}
import org.apache.hadoop.hbase.filter.Filter

import org.apache.spark.{Partition, SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Attribute, BindReferences, GenericInternalRow, InterpretedUnsafeProjection
}
import org.apache.spark.sql.catalyst.plans.physical.{Partitioning, SinglePartition, UnknownPartitioning}
import org.apache.spark.sql.errors.{DataTypeErrors, QueryExecutionErrors}
import org.apache.spark.sql.execution.{LeafExecNode, SparkPlan}
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.codec.{BadRowKey, BinaryKeyCodec, RowCodec}
import org.apache.spark.sql.hbase.common.DescribedInExplain
import org.apache.spark.sql.hbase.planner.{AggregateRequest, AggregateScanPlan, BufferSlot, RegionRequests, RegionScan}
import org.apache.spark.sql.hbase.server.{AggregateBatch, AggregateSpec, RowAggregator, ValueExpression}
import org.apache.spark.sql.types._

/**
 * Carries out an [[AggregateScanPlan]]: one partition per region (or, when the plan says so, one
 * for all, reading its regions in parallel, or one for each task's regions, read one after another),
 * whose region servers return partial groups, turned here into the rows Spark's partial
 * aggregation would have produced (grouping values, then
 * buffers). Rows a region server returns unaggregated (it lacks the coprocessor, or reads another
 * wire version) are folded in here by the same aggregator.
 */
case class HBaseAggregateScan(output: Seq[Attribute], plan: AggregateScanPlan) extends LeafExecNode
    with DescribedInExplain[SparkPlan]
    with ScansHBase {

  override lazy val metrics: Map[String, SQLMetric] = ReadMetrics.create(sparkContext, "partial groups read from HBase")

  override protected def doExecute(): RDD[InternalRow] = {
    ReadMetrics.reportPlan(sparkContext, metrics, plan.scan)
    val rows = new HBaseAggregateRDD(sparkContext, plan, ReadMetrics.of(metrics))
    // Interpreted: a region's few partial groups do not repay generating code in every task.
    val bound = BindReferences.bindReferences(output, output)
    rows.mapPartitionsWithIndexInternal { (index, iter) =>
      val project = InterpretedUnsafeProjection.createProjection(bound)
      project.initialize(index)
      iter.map(project)
    }
  }

  /**
   * In one partition, Spark's final aggregation needs no shuffle; nor, aligned with a join's other
   * side, does one grouped by the key: each of its values is in one partition.
   */
  override def outputPartitioning: Partitioning =
    (plan.scan.alignment, HBaseAggregateRDD.partitionsOf(plan).size) match {
      case (Some(aligned), _) =>
        KeyRangePartitioning(output.find(_.exprId == aligned.key.exprId).getOrElse(aligned.key), aligned)
      case (None, 1) => SinglePartition
      case (None, n) => UnknownPartitioning(n)
    }

  override def simpleString(maxFields: Int): String = plan.describe
}

final case class HBaseAggregatePartition(index: Int, regions: Seq[(RegionScan, AggregateRequest)]) extends Partition

class HBaseAggregateRDD(sc: SparkContext, plan: AggregateScanPlan, metrics: ReadMetrics)
    extends RDD[InternalRow](sc, Nil) {

  override protected def getPartitions: Array[Partition] = HBaseAggregateRDD.partitionsOf(plan).toArray

  override protected def getPreferredLocations(split: Partition): Seq[String] =
    split.asInstanceOf[HBaseAggregatePartition].regions.flatMap(_._1.region.host).distinct

  /**
   * The single task's regions in parallel: each sends one partial row. Several regions of a task
   * otherwise one after another, each closed at its end: their groups may be many.
   */
  override def compute(split: Partition, context: TaskContext): Iterator[InternalRow] = {
    val regions = split.asInstanceOf[HBaseAggregatePartition].regions
    if (plan.singleTask && regions.size > 1) readTogether(regions)
    else regions.iterator.flatMap { case (region, sent) =>
      RegionCloses.closedAtEnd(context)(close => translating(region)(read(region, sent, metrics, close)))
    }
  }

  // Opened at the first row wanted, so that a failure to open is reported like any other.
  private def translating(region: RegionScan)(rows: => Iterator[InternalRow]): Iterator[InternalRow] =
    RegionReadFailure.translating(plan.scan.request.table.hbaseTable, region.region)(rows)

  /** Each region read whole on a thread of its own, counted apart: metrics are not thread-safe. */
  private def readTogether(regions: Seq[(RegionScan, AggregateRequest)]): Iterator[InternalRow] = {
    val counted = regions.map(_ => ReadMetrics.local())
    val reads = regions.zip(counted).map { case ((region, sent), regionMetrics) =>
      () => {
        val closes = mutable.ArrayBuffer.empty[() => Unit]
        try translating(region)(read(region, sent, regionMetrics, close => closes += close)).toArray
        finally closes.foreach(_.apply())
      }
    }
    val rows = HBaseAggregateRDD.regionReads.all(reads).flatten
    counted.foreach(metrics.add)
    rows.iterator
  }

  /**
   * One region's partial groups: the region servers' batches, and the rows they send unaggregated
   * (they lack the coprocessor, or read no such wire version), folded in here by the same
   * aggregator. A region server that refuses the filter, at the start or in the middle, has the
   * rest of the region read without the jar, and folded in here too.
   */
  private def read(
      region: RegionScan,
      sent: AggregateRequest,
      metrics: ReadMetrics,
      closing: (() => Unit) => Unit
  ): Iterator[InternalRow] = {
    val spec = sent.specOf
    val request = plan.scan.request
    val rows = new HBaseAggregateRows(plan, metrics)
    // Rows sent unaggregated are folded in here; their groups follow the region servers'.
    val local = new RowAggregator(spec)
    // What HBase returns counts as rows read: partial groups, or rows unaggregated.
    def results(scan: Scan, taken: Result => Unit): Iterator[InternalRow] =
      RegionScanners.open(request, scan, closing).iterator().asScala.flatMap { result =>
        taken(result)
        if (AggregateBatch.isBatch(result)) {
          val batch = AggregateBatch.read(spec, result)
          if (batch.sentFor == AggregateBatch.MEMORY) metrics.memoryFlushes += 1
          rows.of(batch).map { r => metrics.rowsRead += 1; r }
        } else { metrics.rowsRead += 1; result.rawCells().foreach(local.add); Iterator.empty }
      }
    val fromServers = new ServerJarFallback[InternalRow](
      request.table.hbaseTable,
      region,
      "filter",
      taken => {
        val scan = HBaseCalls.scanFor(request, region.ranges, Seq(sent.filterOf))
        scan.setAttribute(AggregateSpec.ATTRIBUTE, sent.spec.bytes)
        results(scan, taken)
      },
      // Every row of the rest, with the cells the aggregation reads: the aggregator checks the spec's predicate.
      rest => results(HBaseCalls.scanFor(request, rest.ranges, HBaseAggregateRDD.plainFilters(plan, rest)), _ => ())
    )
    val folded = Iterator(()).flatMap { _ =>
      local.endOfRows()
      if (local.hasRows()) rows.of(AggregateBatch.read(spec, local.takeBatch())) else Iterator.empty
    }
    fromServers ++ folded
  }
}

object HBaseAggregateRDD {

  /** Threads that read the regions of a single-task aggregate, shared by the tasks of a JVM. */
  private val regionReads = new ParallelReads("hbase-region-aggregate", 16)

  /**
   * One for all regions, several regions each when the scan shares them out so, or one each;
   * aligned with a join's other side, the regions of each key range.
   */
  def partitionsOf(plan: AggregateScanPlan): Seq[HBaseAggregatePartition] = {
    val regions = plan.regionRequests
    val grouped = plan.scan.alignment match {
      case Some(aligned) => aligned.partitions(regions)
      case None if plan.singleTask => Seq(regions)
      case None => plan.scan.tasks.fold(regions.map(Seq(_)))(_.group(regions))
    }
    grouped.zipWithIndex.map { case (read, i) => HBaseAggregatePartition(i, read) }
  }

  /** A region's read without the server jar: its ranges, and only the cells the aggregation reads. */
  def plainFilters(plan: AggregateScanPlan, region: RegionScan): Seq[Filter] =
    HBaseCalls.rangeFilter(region.ranges).toSeq ++
      HBaseCalls.cellFilter(plan.scan.request.table, RegionRequests.readColumns(plan, region))

}

/** Spark's partial aggregation rows (grouping values, then buffer slots) from the groups of a batch. */
final class HBaseAggregateRows(plan: AggregateScanPlan, metrics: ReadMetrics) {
  // Order-preserving bytes are a value's encoding as a one-column key.
  private val groupCodecs = plan.groupBy.map(c => new BinaryKeyCodec(Seq(c.dataType)))
  private val extremeCodecs: Map[Int, BinaryKeyCodec] = plan.slots.zipWithIndex.collect {
    case (BufferSlot.ExtremeSlot(_, dataType), i) => i -> new BinaryKeyCodec(Seq(dataType))
  }.toMap

  def of(batch: AggregateBatch): Iterator[InternalRow] = {
    metrics.rowsScanned += batch.rowsScanned
    metrics.badRowKeys += batch.badKeys
    if (batch.failure != null) throw HBaseAggregateRows.sparkError(batch.failure)
    if (batch.badKey != null) {
      val table = plan.scan.request.table
      val codec = new RowCodec(table)
      // The region server says which row, not why: a key that is not one, or a packed cell it could not read.
      val problem =
        if (codec.keyValues(batch.badKey) == null) codec.keyProblem(batch.badKey) else RowCodec.UnreadablePackedRow
      throw BadRowKey.error(table, batch.badKey, problem)
    }
    batch.keys.asScala.iterator.zip(batch.states.asScala.iterator).map { case (key, states) =>
      val values = new Array[Any](key.length + plan.slots.size)
      var i = 0
      while (i < key.length) {
        values(i) = if (key(i) == null) null else groupCodecs(i).decode(key(i))(0)
        i += 1
      }
      plan.slots.zipWithIndex.foreach { case (slot, s) =>
        values(i) = slotValue(slot, s, states(slot.source))
        i += 1
      }
      new GenericInternalRow(values)
    }
  }

  private def slotValue(slot: BufferSlot, index: Int, state: Array[AnyRef]): Any = {
    val (flag, value) = (state(0).asInstanceOf[java.lang.Byte].byteValue(), state(1))
    slot match {
      case BufferSlot.CountSlot(_) => value
      case BufferSlot.LongSumSlot(_, ansi) =>
        if (flag == HBaseAggregateRows.Overflow && ansi)
          throw QueryExecutionErrors.arithmeticOverflowError("long overflow", "try_sum", null)
        value
      case BufferSlot.DoubleSumSlot(_, zero) => if (value == null && zero) 0.0d else value
      case BufferSlot.DecimalSumSlot(_, d) =>
        if (value == null) Decimal(0L, d.precision, d.scale)
        else {
          val sum = Decimal(value.asInstanceOf[java.math.BigDecimal])
          if (sum.changePrecision(d.precision, d.scale)) sum else null
        }
      case BufferSlot.IsEmptySlot(_) => value == null
      case BufferSlot.ExtremeSlot(_, _) =>
        if (value == null) null else extremeCodecs(index).decode(value.asInstanceOf[Array[Byte]])(0)
    }
  }
}

object HBaseAggregateRows {
  private val Overflow: Byte = 2

  /** The error Spark raises under ANSI for the value a region server could not fit. */
  def sparkError(failure: ValueExpression.OutOfRange): Throwable =
    if (failure.value != null) {
      DataTypeErrors.cannotChangeDecimalPrecisionError(Decimal(failure.value), failure.precision, failure.scale, null)
    } else {
      QueryExecutionErrors.arithmeticOverflowError(failure.getMessage, failure.hint, null)
    }
}
