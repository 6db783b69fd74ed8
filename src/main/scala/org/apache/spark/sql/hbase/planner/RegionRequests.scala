// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.server.{AggregateFunction, AggregateSpec, Operand, SkipScanFilter, ValueExpression}
import org.apache.spark.sql.types._

/** Bytes a region server is sent, compared by their content. */
final case class WireBytes(bytes: Array[Byte]) {
  override def equals(other: Any): Boolean = other match {
    case WireBytes(those) => java.util.Arrays.equals(bytes, those)
    case _ => false
  }
  override def hashCode: Int = java.util.Arrays.hashCode(bytes)
  override def toString: String = s"WireBytes(${bytes.length} bytes)"
}

/** What an aggregate sends the region server of one region: its filter and its aggregation. */
final case class AggregateRequest(filter: WireBytes, spec: WireBytes) {
  def filterOf: SkipScanFilter = SkipScanFilter.parseFrom(filter.bytes)
  def specOf: AggregateSpec = AggregateSpec.parseFrom(spec.bytes)
}

/**
 * What region servers are sent, made once while planning, in the plan's wire version: each
 * region's filter of the server jar, and an aggregate's spec. Executors send these bytes as they
 * are; nothing is translated again in a task.
 */
object RegionRequests {

  /**
   * The plan with each region's server filter written as it is sent. Regions mostly push the same
   * conjuncts, which may be an OR of thousands of terms: each distinct set is translated once.
   */
  def withFilters(plan: TableScanPlan): TableScanPlan = {
    val request = plan.request
    val translated = mutable.Map.empty[Seq[Expression], Option[RowPredicatePlan]]
    val predicates = serverPredicates(request)
    plan.copy(regions = plan.regions.map { region =>
      region.copy(server = region.server.map { server =>
        val predicate = translated.getOrElseUpdate(server.pushed, predicates.build(server.pushed))
        val returned = request.returnedColumns(region.residual)
        server.copy(wire = Some(WireBytes(scanFilter(request, server, returned, predicate).toByteArray)))
      })
    })
  }

  /** What the aggregate sends for each region, in the order of its scan's regions. */
  def forAggregate(plan: AggregateScanPlan): Seq[AggregateRequest] = plan.scan.regions.map { region =>
    AggregateRequest(
      WireBytes(aggregateFilter(plan, region).toByteArray),
      WireBytes(aggregateSpec(plan, region).toByteArray)
    )
  }

  /** The region server's part of a region's read, as one filter of the server jar. */
  def scanFilter(request: ScanRequest, server: ServerFilter, returned: Seq[HBaseColumn]): SkipScanFilter =
    scanFilter(request, server, returned, serverPredicates(request).build(server.pushed))

  private def serverPredicates(request: ScanRequest): ServerPredicates =
    new ServerPredicates(request.table, KeyCodec.forTable(request.table), request.columnOf, request.wireVersion)

  /** The filter, with the pushed conjuncts already translated into `predicate`. */
  private def scanFilter(
      request: ScanRequest,
      server: ServerFilter,
      returned: Seq[HBaseColumn],
      predicate: Option[RowPredicatePlan]
  ): SkipScanFilter = {
    val table = request.table
    val codec = KeyCodec.forTable(table)
    val boxes = server.boxes.map(_.flatMap(KeyBoxes.encode(_, codec)).toArray).orNull
    val cells = returned.flatMap(_.readsCell).distinct
    // A packed table's rows come whole: a cell of its families that is not a packed one is an error to report.
    val allCells = table.isPacked || table.values.flatMap(_.cell).forall(cells.contains)
    new SkipScanFilter(
      codec.sliceLayout,
      boxes,
      predicate.fold(Array.empty[Operand])(_.operands.toArray),
      predicate.map(_.predicate).orNull,
      if (allCells) null else cells.map(c => Utf8.bytes(c.family)).toArray,
      if (allCells) null else cells.map(c => Utf8.bytes(c.qualifier)).toArray,
      request.wireVersion
    )
  }

  /** The region servers' part: skip scan through the region's key boxes, and only the cells the aggregation reads. */
  def aggregateFilter(plan: AggregateScanPlan, region: RegionScan): SkipScanFilter = {
    val request = plan.scan.request
    val table = request.table
    val codec = KeyCodec.forTable(table)
    val boxes = region.server.flatMap(_.boxes).map(_.flatMap(KeyBoxes.encode(_, codec)).toArray).orNull
    val cells = readColumns(plan, region).flatMap(_.readsCell).distinct
    // A packed table's rows come whole, so that a cell that is not a packed one is seen.
    def outputOf(part: CellRef => String) = if (table.isPacked) null else cells.map(c => Utf8.bytes(part(c))).toArray
    new SkipScanFilter(
      codec.sliceLayout,
      boxes,
      Array.empty[Operand],
      null,
      outputOf(_.family),
      outputOf(_.qualifier),
      plan.wireVersion
    )
  }

  /** The columns the region servers read for a region: the aggregation's, and those of the region's WHERE conjuncts. */
  def readColumns(plan: AggregateScanPlan, region: RegionScan): Seq[HBaseColumn] = {
    val request = plan.scan.request
    (plan.columns ++ region.server.toSeq.flatMap(_.pushed).flatMap(_.references).map(request.columnOf)).distinct
  }

  /** What the region server computes for one region: the aggregation, with the region's WHERE conjuncts. */
  def aggregateSpec(plan: AggregateScanPlan, region: RegionScan): AggregateSpec =
    aggregateSpec(plan, region.server.toSeq.flatMap(_.pushed))

  /** The aggregation, with the WHERE conjuncts `pushed` (each one the region servers evaluate). */
  def aggregateSpec(plan: AggregateScanPlan, pushed: Seq[Expression]): AggregateSpec = {
    val request = plan.scan.request
    val table = request.table
    val codec = KeyCodec.forTable(table)
    // A packed table's every family is read, so that a row with a malformed cell there is told apart, as Spark does.
    val witnesses = if (table.isPacked) table.values.distinctBy(_.cell.get.family) else Nil
    val operands = new ServerPredicates(table, codec, request.columnOf, plan.wireVersion)
      .withColumns((plan.columns ++ witnesses).distinct, pushed)
    val raw = (c: HBaseColumn) => ValueExpression.operand(operands.indexOf(c), ValueExpression.RAW, 0)
    val computed = (v: ServerValue) => value(v, operands.indexOf(_))
    val functions = plan.aggregates.map {
      case ServerAggregate.CountRows => AggregateFunction.countRows()
      // Whether a column is NULL needs its bytes only.
      case ServerAggregate.CountOf(ServerValue.ColumnValue(c)) => AggregateFunction.of(AggregateFunction.COUNT, raw(c))
      case ServerAggregate.CountOf(v) => AggregateFunction.of(AggregateFunction.COUNT, computed(v))
      case ServerAggregate.SumOf(v) => AggregateFunction.of(AggregateFunction.SUM, computed(v))
      case ServerAggregate.MinOf(c) => AggregateFunction.of(AggregateFunction.MIN, raw(c))
      case ServerAggregate.MaxOf(c) => AggregateFunction.of(AggregateFunction.MAX, raw(c))
    }
    new AggregateSpec(
      codec.sliceLayout,
      operands.operands.toArray,
      operands.predicate.orNull,
      plan.groupBy.map(operands.indexOf).toArray,
      functions.toArray,
      plan.maxGroups,
      plan.sliceMillis,
      plan.maxGroupBytes,
      codec.keyCheck.get, // AggregatePushdown plans none without it
      request.skipBadRowKeys,
      plan.wireVersion
    )
  }

  /** A value in the server jar's form, each column read as operand number `operandOf(column)`. */
  def value(v: ServerValue, operandOf: HBaseColumn => Int): ValueExpression = {
    import ValueExpression._
    def shape(t: DataType, failOnOverflow: Boolean): Shape = t match {
      case d: DecimalType => Shape.decimal(d.precision, d.scale, failOnOverflow)
      case DoubleType => Shape.floating()
      case _ => Shape.integral(ServerValue.integralWidth(t).get, failOnOverflow)
    }
    v match {
      case ServerValue.ColumnValue(c) => c.dataType match {
          case _: IntegralType => operand(operandOf(c), LONG, 0)
          case FloatType | DoubleType => operand(operandOf(c), DOUBLE, 0)
          case d: DecimalType => operand(operandOf(c), DECIMAL, d.scale)
          case other => throw new IllegalStateException(s"column ${c.name} of type ${other.sql} is not a number")
        }
      // A DECIMAL of up to 18 digits is ordered as its unscaled LONG is.
      case ServerValue.UnscaledOf(c) => operand(operandOf(c), LONG, 0)
      case ServerValue.Constant(x, t) => t match {
          case DoubleType => constant(DOUBLE, x)
          case _: DecimalType => constant(DECIMAL, x)
          case _ => constant(LONG, x)
        }
      case ServerValue.Arithmetic(op, l, r, t, fail) =>
        val code = op match {
          case ServerValue.Plus => ADD
          case ServerValue.Minus => SUBTRACT
          case ServerValue.Times => MULTIPLY
        }
        arithmetic(code, value(l, operandOf), value(r, operandOf), shape(t, fail))
      case ServerValue.Negated(child, fail) => negate(value(child, operandOf), shape(v.dataType, fail))
      // Widening a whole number, or a FLOAT to DOUBLE, changes nothing the region server holds.
      case ServerValue.Converted(child, _: IntegralType, _) => value(child, operandOf)
      case ServerValue.Converted(child, DoubleType, _) if child.dataType == FloatType => value(child, operandOf)
      case ServerValue.Converted(child, t, fail) => cast(value(child, operandOf), shape(t, fail))
    }
  }
}
