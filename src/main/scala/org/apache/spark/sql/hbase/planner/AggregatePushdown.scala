// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, EvalMode, Expression, KnownFloatingPointNormalized, Literal, NamedExpression
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, Average, Count, Max, Min, Partial, Sum}
import org.apache.spark.sql.catalyst.optimizer.NormalizeNaNAndZero
import org.apache.spark.sql.hbase.metadata.HBaseColumn
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.server.{AggregateSpec, Operand, ServerJar}
import org.apache.spark.sql.types._

/** One aggregate a region server computes per group (see the server jar's `AggregateFunction`). */
sealed trait ServerAggregate { def sql: String }
object ServerAggregate {
  case object CountRows extends ServerAggregate { def sql = "count(1)" }

  /** Rows where the value is not NULL. */
  final case class CountOf(value: ServerValue) extends ServerAggregate { def sql = s"count(${value.sql})" }
  final case class SumOf(value: ServerValue) extends ServerAggregate { def sql = s"sum(${value.sql})" }
  final case class MinOf(column: HBaseColumn) extends ServerAggregate { def sql = s"min(${column.name})" }
  final case class MaxOf(column: HBaseColumn) extends ServerAggregate { def sql = s"max(${column.name})" }
}

/**
 * How one slot of Spark's partial aggregation buffer comes from what the region server sent:
 * the state of server aggregate `source`, read as the slot's type.
 */
sealed trait BufferSlot { def source: Int }
object BufferSlot {

  /** A count. */
  final case class CountSlot(source: Int) extends BufferSlot

  /** A LONG sum: NULL without input; past the 64-bit range it wraps, or fails under ANSI. */
  final case class LongSumSlot(source: Int, ansi: Boolean) extends BufferSlot

  /** A DOUBLE sum: NULL without input, or 0.0 where the buffer starts at zero (AVG). */
  final case class DoubleSumSlot(source: Int, zeroWithoutInput: Boolean) extends BufferSlot

  /**
   * An exact DECIMAL sum in the buffer's type: 0 without input, NULL when it does not fit,
   * which is what Spark's buffer holds after an overflow (its final step then fails under ANSI).
   */
  final case class DecimalSumSlot(source: Int, dataType: DecimalType) extends BufferSlot

  /** SUM's `isEmpty` for a DECIMAL: whether the sum had no input. */
  final case class IsEmptySlot(source: Int) extends BufferSlot

  /** MIN or MAX: the value whose order-preserving bytes won, as the column's type. */
  final case class ExtremeSlot(source: Int, dataType: DataType) extends BufferSlot
}

/**
 * A partial aggregation carried out by the region servers over a finished scan: the rows the
 * scan's plan reads, with every conjunct of the WHERE clause checked there, grouped by
 * `groupBy`, each group with the `aggregates`; Spark's buffer slots are made from them.
 *
 * @param maxGroups     most groups a region server holds for a region before it sends them
 * @param sliceMillis   how long a region server reads per call before HBase may answer the client
 * @param maxGroupBytes most estimated bytes of groups it holds for a region before it sends them (0: no cap of the query's own)
 * @param wireVersion   the wire version of the aggregation and its filter, the newest both the client and the region servers read
 */
final case class AggregateScanPlan(
    scan: TableScanPlan,
    groupBy: Seq[HBaseColumn],
    aggregates: Seq[ServerAggregate],
    slots: Seq[BufferSlot],
    maxGroups: Int,
    sliceMillis: Int,
    singleTask: Boolean,
    maxGroupBytes: Long = 0,
    wireVersion: Int = ServerJar.WIRE_VERSION,
    requests: Seq[AggregateRequest] = Nil
) {

  /** Each region of the scan with what its region server is sent (see [[RegionRequests]]). */
  def regionRequests: Seq[(RegionScan, AggregateRequest)] = {
    require(requests.size == scan.regions.size, "the aggregate's region requests were never written")
    scan.regions.zip(requests)
  }

  /** The same aggregation over `read`, the scan read otherwise (aligned with a join's other side), with its regions' requests. */
  def readingAs(read: TableScanPlan): AggregateScanPlan = {
    val plan = copy(scan = read, requests = Nil)
    plan.copy(requests = RegionRequests.forAggregate(plan))
  }

  /** Every column the region servers read for the groups and aggregates. */
  def columns: Seq[HBaseColumn] =
    (groupBy ++ aggregates.flatMap {
      case ServerAggregate.CountRows => Nil
      case ServerAggregate.CountOf(v) => v.columns
      case ServerAggregate.SumOf(v) => v.columns
      case ServerAggregate.MinOf(c) => Seq(c)
      case ServerAggregate.MaxOf(c) => Seq(c)
    }).distinct

  def describe: String = {
    val groups = if (groupBy.isEmpty) "" else s" group by ${groupBy.map(_.name).mkString(", ")}"
    val oneTask =
      if (singleTask && scan.regions.size > 1) ", regions read together in one task"
      else if (singleTask) ""
      else if (scan.alignment.isDefined) ""
      else scan.tasks.fold("")(_.describe)
    s"HBaseAggregateScan ${scan.describeReads}${scan.describeAlignment}, partial aggregate in region servers: " +
      s"${aggregates.map(_.sql).mkString(", ")}$groups$oneTask"
  }
}

/**
 * Whether the region servers can compute Spark's partial aggregation over a scan, and how:
 * only when they check the whole WHERE clause (nothing is left for Spark in any region), every
 * region is scanned rather than read by Gets, every grouping value is a column they can read,
 * and every aggregate is one they compute exactly as Spark would. Anything else stays in Spark.
 */
object AggregatePushdown {

  /**
   * A quarter of the shortest timeout a scan's RPC has (the client's scanner timeout and its read
   * RPC timeout), between 10 ms and 1 s. HBase sends a heartbeat after half of it at the latest.
   */
  def sliceMillis(settings: Map[String, String]): Int = {
    def setting(key: String) = settings.get(key).flatMap(_.toLongOption)
    val scanner = setting("hbase.client.scanner.timeout.period").getOrElse(60000L)
    val rpc = setting("hbase.rpc.read.timeout").orElse(setting("hbase.rpc.timeout")).getOrElse(60000L)
    (math.min(scanner, rpc) / 4).max(10L).min(1000L).toInt
  }

  /**
   * @param grouping    the partial aggregate's grouping expressions
   * @param aggregates  its aggregate expressions, all Partial
   * @param columnOf    the table column an attribute of the scan reads
   * @param facts       the table's facts; the coprocessor is asked about only when all else allows pushing
   * @param singleTaskMaxRegions an aggregate without groups over at most this many regions is read in one
   *                    task: its few partial rows then need no shuffle before Spark's final aggregation
   * @param maxGroupBytes most estimated bytes of one region's groups in a region server (0: its budget alone);
   *                    region servers of wire version 1 know no such cap
   */
  def plan(
      scan: TableScanPlan,
      grouping: Seq[NamedExpression],
      aggregates: Seq[AggregateExpression],
      columnOf: Attribute => Option[HBaseColumn],
      facts: TableFacts,
      maxGroups: Int,
      singleTaskMaxRegions: Int,
      maxGroupBytes: Long = 0
  ): Option[AggregateScanPlan] = {
    val table = scan.request.table
    val fullyPushed = scan.regions.nonEmpty &&
      scan.regions.forall(r => r.residual.isEmpty && r.server.isDefined && !r.byGets)
    if (!fullyPushed || scan.request.limits.maxRows.isDefined) return None
    // Region servers tell another tool's rows by their keys, as Spark does, where the key's bytes
    // alone decide it; text keys of other types only Spark can parse.
    if (KeyCodec.forTable(table).keyCheck.isEmpty) return None
    val (groupBy, server, slots) =
      translate(scan.request, grouping, aggregates, a => columnOf(a), _ => true).getOrElse(return None)
    // The filter and the aggregation go together: the older of their versions carries both.
    // Asked through a region whose server has the jar: a server without it would answer for none.
    val wireVersion = facts.aggregator(scan.regionsWithServerJar).fold(return None)(_ min scan.request.wireVersion)
    if (!AggregateSpec.checksKeys(wireVersion)) return None // an older server would fold in any row
    // An older server would take a packed table's rows for rows without values.
    if (table.isPacked && !Operand.readsPackedCells(wireVersion)) return None
    val plan = AggregateScanPlan(
      scan,
      groupBy,
      server,
      slots,
      maxGroups,
      sliceMillis(scan.request.cluster.settings),
      singleTask = groupBy.isEmpty && scan.regions.size <= singleTaskMaxRegions,
      maxGroupBytes = if (AggregateSpec.carriesByteCap(wireVersion)) maxGroupBytes else 0,
      wireVersion = wireVersion
    )
    Some(plan.copy(requests = RegionRequests.forAggregate(plan)))
  }

  /**
   * The grouping columns, server aggregates and Spark's buffer slots of a partial aggregation, when
   * region servers can compute it exactly over the rows of `request`: each grouping value a column
   * they read, each aggregate one they compute as Spark would, over columns they read; only
   * columns `held` by the rows they read count.
   */
  def translate(
      request: ScanRequest,
      grouping: Seq[NamedExpression],
      aggregates: Seq[AggregateExpression],
      columnOf: Attribute => Option[HBaseColumn],
      held: HBaseColumn => Boolean
  ): Option[(Seq[HBaseColumn], Seq[ServerAggregate], Seq[BufferSlot])] = {
    val table = request.table
    val readable =
      new ServerPredicates(table, KeyCodec.forTable(table), a => columnOf(a).get, request.wireVersion).readable _
    def column(e: Expression): Option[HBaseColumn] = e match {
      case a: Attribute => columnOf(a).filter(c => readable(c) && held(c))
      case _ => None
    }
    def value(e: Expression): Option[ServerValue] = ServerValue.of(e, column)
    def groupColumn(e: NamedExpression): Option[HBaseColumn] = e match {
      case a: Attribute => column(a)
      // Order-preserving bytes already hold -0.0 as 0.0 and every NaN as one.
      case Alias(KnownFloatingPointNormalized(NormalizeNaNAndZero(a: Attribute)), _) => column(a)
      case _ => None
    }
    if (aggregates.exists(a => a.mode != Partial || a.isDistinct || a.filter.isDefined)) return None

    val groupBy = grouping.map(groupColumn)
    if (groupBy.exists(_.isEmpty)) return None

    val server = scala.collection.mutable.ArrayBuffer.empty[ServerAggregate]
    // AVG(v) and COUNT(v) share count(v): each server aggregate is computed once.
    def add(a: ServerAggregate): Int = server.indexOf(a) match {
      case -1 => server += a; server.size - 1
      case i => i
    }
    import BufferSlot._
    import ServerAggregate._
    val slots: Seq[Option[Seq[BufferSlot]]] = aggregates.map(_.aggregateFunction).map {
      case Count(Seq(l: Literal)) if l.value != null => Some(Seq(CountSlot(add(CountRows))))
      case Count(Seq(e)) =>
        column(e).map(ServerValue.ColumnValue).orElse(value(e)).map(v => Seq(CountSlot(add(CountOf(v)))))
      case sum @ Sum(e, context) if context.evalMode != EvalMode.TRY =>
        val ansi = context.evalMode == EvalMode.ANSI
        value(e).flatMap { v =>
          (v.dataType, sum.dataType) match {
            case (_: IntegralType, _) => Some(Seq(LongSumSlot(add(SumOf(v)), ansi)))
            case (FloatType | DoubleType, DoubleType) =>
              Some(Seq(DoubleSumSlot(add(SumOf(v)), zeroWithoutInput = false)))
            case (_: DecimalType, d: DecimalType) =>
              val source = add(SumOf(v))
              Some(Seq(DecimalSumSlot(source, d), IsEmptySlot(source)))
            case _ => None
          }
        }
      case avg @ Average(e, mode) => value(e).flatMap { v =>
          val sumSlot = (v.dataType, avg.aggBufferAttributes.head.dataType) match {
            case (_: IntegralType, DoubleType) =>
              Some(DoubleSumSlot(
                add(SumOf(ServerValue.Converted(v, DoubleType, failOnOverflow = false))),
                zeroWithoutInput = true
              ))
            case (FloatType | DoubleType, DoubleType) => Some(DoubleSumSlot(add(SumOf(v)), zeroWithoutInput = true))
            // Under ANSI, Spark's partial sum fails once it leaves its type; below 38 digits that
            // takes more than 10^10 rows, at 38 only two: then it stays in Spark.
            case (_: DecimalType, d: DecimalType) if mode != EvalMode.ANSI || d.precision < DecimalType.MAX_PRECISION =>
              Some(DecimalSumSlot(add(SumOf(v)), d))
            case _ => None
          }
          sumSlot.map(slot => Seq(slot, CountSlot(add(CountOf(v)))))
        }
      case Min(e) => column(e).map(c => Seq(ExtremeSlot(add(MinOf(c)), c.dataType)))
      case Max(e) => column(e).map(c => Seq(ExtremeSlot(add(MaxOf(c)), c.dataType)))
      case _ => None
    }
    if (slots.exists(_.isEmpty)) None
    else Some((groupBy.flatten, server.toSeq, slots.flatMap(_.get)))
  }
}
