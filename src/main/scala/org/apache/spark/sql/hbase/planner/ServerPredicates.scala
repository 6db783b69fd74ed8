// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef, TableFormat}
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, CellTypes, KeyCodec, SliceCheck}
import org.apache.spark.sql.hbase.server.{Operand, RowPredicate, ServerJar}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** A predicate in the region server's form: what it reads of each row, and the test itself. */
final case class RowPredicatePlan(operands: Seq[Operand], predicate: RowPredicate)

/** The operands a region server reads of each row, the column of each, and a predicate over them. */
final case class RowOperandsPlan(columns: Seq[HBaseColumn], operands: Seq[Operand], predicate: Option[RowPredicate]) {
  def indexOf(column: HBaseColumn): Int = columns.indexOf(column)
}

/**
 * Which parts of a WHERE clause a region server can evaluate, and their translation: AND, OR and
 * NOT over comparisons, IN lists, IS NULL and string prefix, suffix and containment tests, each
 * between a column and literals of its own type. Values compare as order-preserving bytes, so a
 * comparison is a byte comparison there. Anything else stays with Spark.
 *
 * @param columnOf    the table column an attribute of the scan reads
 * @param wireVersion the wire version the region servers are sent: from 4, they read a packed
 *                    table's values from slots of its packed cells
 */
final class ServerPredicates(
    table: HBaseTableDef,
    codec: KeyCodec,
    columnOf: Attribute => HBaseColumn,
    wireVersion: Int = ServerJar.WIRE_VERSION
) {

  // Every region of a scan asks about the same conjuncts, and one may be an OR of thousands of terms.
  private val decided = mutable.Map.empty[Expression, Boolean]

  /** Whether the region server can evaluate `conjunct`. */
  def pushable(conjunct: Expression): Boolean =
    decided.getOrElseUpdate(conjunct, translate(conjunct, (_, _) => 0).isDefined)

  /** The region server's form of conjuncts that are all [[pushable]]; None for no conjunct. */
  def build(conjuncts: Seq[Expression]): Option[RowPredicatePlan] =
    if (conjuncts.isEmpty) None
    else {
      val plan = withColumns(Nil, conjuncts)
      Some(RowPredicatePlan(plan.operands, plan.predicate.get))
    }

  /**
   * Operands for `columns` first, numbered in that order, then for the columns the conjuncts
   * read, with the conjuncts' predicate (None for no conjunct). Every column must have an operand.
   */
  def withColumns(columns: Seq[HBaseColumn], conjuncts: Seq[Expression]): RowOperandsPlan = {
    val operands = mutable.LinkedHashMap.empty[HBaseColumn, (Operand, Int)]
    def register(column: HBaseColumn, o: Operand) = operands.getOrElseUpdate(column, (o, operands.size))._2
    columns.foreach { c =>
      register(
        c,
        operandOf(c).getOrElse(throw new IllegalArgumentException(s"a region server cannot read column ${c.name}"))
      )
    }
    val predicates = conjuncts.map { c =>
      translate(c, register).getOrElse(throw new IllegalArgumentException(s"not pushable to a region server: ${c.sql}"))
    }
    val predicate = predicates match {
      case Seq() => None
      case Seq(one) => Some(one)
      case many => Some(RowPredicate.and(many: _*))
    }
    RowOperandsPlan(operands.keys.toSeq, operands.values.map(_._1).toSeq, predicate)
  }

  /** Whether a region server can read a column's values as order-preserving bytes. */
  def readable(column: HBaseColumn): Boolean = operandOf(column).isDefined

  /** How the region server reads a column, if it can compare its values. */
  private def operandOf(column: HBaseColumn): Option[Operand] = {
    if (column.isKey) {
      val dim = table.keys.indexOf(column)
      if (codec.sliceCheck(dim) == SliceCheck.Opaque) None else Some(Operand.key(dim))
    } else CellTypes.valueOperand(table, column, Operand.readsPackedCells(wireVersion))
  }

  /** `index` numbers each column's operand. */
  private def translate(e: Expression, index: (HBaseColumn, Operand) => Int): Option[RowPredicate] = {
    def operand(a: Attribute): Option[Int] = {
      val column = columnOf(a)
      operandOf(column).map(index(column, _))
    }
    def literal(a: Attribute, l: Literal): Option[Array[Byte]] =
      if (l.value == null || l.dataType != a.dataType) None else Some(BinaryKeyCodec.comparable(a.dataType, l.value))
    def compare(op: Option[String], a: Attribute, l: Literal) =
      for (o <- op; i <- operand(a); v <- literal(a, l)) yield RowPredicate.compare(o, i, v)
    def text(a: Attribute, l: Literal, make: (Int, Array[Byte]) => RowPredicate) = l.value match {
      case s: UTF8String if a.dataType == StringType && l.dataType == StringType => operand(a).map(make(_, s.getBytes))
      case _ => None
    }
    def all(es: Seq[Expression]) = {
      val parts = es.map(translate(_, index))
      if (parts.forall(_.isDefined)) Some(parts.flatten) else None
    }

    e match {
      case And(a, b) => all(Seq(a, b)).map(ps => RowPredicate.and(ps: _*))
      case Or(a, b) => all(Seq(a, b)).map(ps => RowPredicate.or(ps: _*))
      case Not(a) => translate(a, index).map(RowPredicate.not)
      case IsNull(a: Attribute) => operand(a).map(RowPredicate.isNull)
      case IsNotNull(a: Attribute) => operand(a).map(i => RowPredicate.not(RowPredicate.isNull(i)))
      case EqualNullSafe(a: Attribute, Literal(null, _)) => operand(a).map(RowPredicate.isNull)
      case EqualNullSafe(Literal(null, _), a: Attribute) => operand(a).map(RowPredicate.isNull)
      case c: BinaryComparison => (c.left, c.right) match {
          case (a: Attribute, l: Literal) => compare(symbol(c, flipped = false), a, l)
          case (l: Literal, a: Attribute) => compare(symbol(c, flipped = true), a, l)
          case _ => None
        }
      case In(a: Attribute, list) if list.forall(_.isInstanceOf[Literal]) =>
        val values = list.map(l => literal(a, l.asInstanceOf[Literal]))
        if (values.exists(_.isEmpty)) None else operand(a).map(RowPredicate.in(_, values.flatten: _*))
      case InSet(a: Attribute, set) if !set.contains(null) =>
        val values = set.toSeq.map(v => literal(a, Literal.create(v, a.dataType)))
        if (values.exists(_.isEmpty)) None else operand(a).map(RowPredicate.in(_, values.flatten: _*))
      case StartsWith(a: Attribute, l: Literal) => text(a, l, RowPredicate.startsWith)
      case EndsWith(a: Attribute, l: Literal) => text(a, l, RowPredicate.endsWith)
      case Contains(a: Attribute, l: Literal) => text(a, l, RowPredicate.contains)
      case _ => None
    }
  }

  private def symbol(c: BinaryComparison, flipped: Boolean): Option[String] = (c, flipped) match {
    case (_: EqualTo, _) => Some("=")
    case (_: EqualNullSafe, _) => Some("<=>")
    case (_: LessThan, false) | (_: GreaterThan, true) => Some("<")
    case (_: LessThanOrEqual, false) | (_: GreaterThanOrEqual, true) => Some("<=")
    case (_: GreaterThan, false) | (_: LessThan, true) => Some(">")
    case (_: GreaterThanOrEqual, false) | (_: LessThanOrEqual, true) => Some(">=")
    case _ => None
  }
}
