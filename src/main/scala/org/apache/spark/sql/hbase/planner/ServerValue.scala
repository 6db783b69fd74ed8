// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{
  Add, Attribute, Cast, EvalMode, Expression, Literal, Multiply, NumericEvalContext, Subtract, UnaryMinus, UnscaledValue
}
import org.apache.spark.sql.hbase.metadata.HBaseColumn
import org.apache.spark.sql.types._

/**
 * A number a region server computes from a row for an aggregate, exactly as Spark computes the
 * expression it comes from (see the server jar's `ValueExpression`): columns, constants, and
 * `+`, `-`, `*`, negation and widening casts over them, each with Spark's result type and its
 * behaviour outside it (`failOnOverflow` under ANSI).
 */
sealed trait ServerValue {
  def dataType: DataType
  def sql: String
  def columns: Seq[HBaseColumn]
}

object ServerValue {
  final case class ColumnValue(column: HBaseColumn) extends ServerValue {
    def dataType: DataType = column.dataType
    def sql: String = column.name
    def columns: Seq[HBaseColumn] = Seq(column)
  }

  /** A DECIMAL of at most 18 digits as its unscaled LONG (Spark's `UnscaledValue`). */
  final case class UnscaledOf(column: HBaseColumn) extends ServerValue {
    def dataType: DataType = LongType
    def sql: String = s"unscaled(${column.name})"
    def columns: Seq[HBaseColumn] = Seq(column)
  }

  /** A Long, Double or java.math.BigDecimal of `dataType`. */
  final case class Constant(value: Any, dataType: DataType) extends ServerValue {
    def sql: String = value.toString
    def columns: Seq[HBaseColumn] = Nil
  }

  sealed abstract class Operator(val symbol: String)
  case object Plus extends Operator("+")
  case object Minus extends Operator("-")
  case object Times extends Operator("*")

  final case class Arithmetic(
      op: Operator,
      left: ServerValue,
      right: ServerValue,
      dataType: DataType,
      failOnOverflow: Boolean
  ) extends ServerValue {
    def sql: String = s"(${left.sql} ${op.symbol} ${right.sql})"
    def columns: Seq[HBaseColumn] = (left.columns ++ right.columns).distinct
  }

  final case class Negated(child: ServerValue, failOnOverflow: Boolean) extends ServerValue {
    def dataType: DataType = child.dataType
    def sql: String = s"(- ${child.sql})"
    def columns: Seq[HBaseColumn] = child.columns
  }

  /** A whole number or DECIMAL as DOUBLE or DECIMAL, a FLOAT as DOUBLE, or a whole number widened. */
  final case class Converted(child: ServerValue, dataType: DataType, failOnOverflow: Boolean) extends ServerValue {
    def sql: String = s"CAST(${child.sql} AS ${dataType.sql})"
    def columns: Seq[HBaseColumn] = child.columns
  }

  /** Integral results a region server computes, by their width in bytes; narrower ones wrap differently. */
  def integralWidth(t: DataType): Option[Int] = t match {
    case IntegerType => Some(4)
    case LongType => Some(8)
    case _ => None
  }

  private def computable(t: DataType): Boolean = integralWidth(t).isDefined || t == DoubleType ||
    t.isInstanceOf[DecimalType]

  private def integralWidthOf(t: DataType): Int = t match {
    case ByteType => 1
    case ShortType => 2
    case IntegerType => 4
    case _ => 8
  }

  /**
   * The server form of `e`, if a region server computes it exactly as Spark would.
   *
   * @param column the readable table column an expression reads, if it is one
   */
  def of(e: Expression, column: Expression => Option[HBaseColumn]): Option[ServerValue] = {
    def numeric(t: DataType) = t.isInstanceOf[NumericType]
    def arithmetic(op: Operator, l: Expression, r: Expression, context: NumericEvalContext) =
      if (context.evalMode == EvalMode.TRY || !computable(e.dataType)) None
      else for {
        left <- of(l, column) if sameKind(left.dataType, e.dataType)
        right <- of(r, column) if sameKind(right.dataType, e.dataType)
      } yield Arithmetic(op, left, right, e.dataType, context.evalMode == EvalMode.ANSI)
    e match {
      case a: Attribute => column(a).filter(c => numeric(c.dataType)).map(ColumnValue)
      case UnscaledValue(a) => column(a).collect {
          case c if c.dataType.asInstanceOf[DecimalType].precision <= Decimal.MAX_LONG_DIGITS => UnscaledOf(c)
        }
      case Literal(v: Int, IntegerType) => Some(Constant(v.toLong, IntegerType))
      case Literal(v: Long, LongType) => Some(Constant(v, LongType))
      case Literal(v: Double, DoubleType) => Some(Constant(v, DoubleType))
      case Literal(v: Decimal, t: DecimalType) => Some(Constant(v.toJavaBigDecimal, t))
      case Add(l, r, mode) => arithmetic(Plus, l, r, mode)
      case Subtract(l, r, mode) => arithmetic(Minus, l, r, mode)
      case Multiply(l, r, mode) => arithmetic(Times, l, r, mode)
      // Spark negates a DECIMAL of more than 34 digits to 34 (Scala's default MathContext).
      case UnaryMinus(_, _)
          if e.dataType.isInstanceOf[DecimalType] && e.dataType.asInstanceOf[DecimalType].precision > 34 => None
      case UnaryMinus(child, failOnError) if computable(e.dataType) =>
        of(child, column).filter(_.dataType == e.dataType).map(Negated(_, failOnError))
      case c: Cast if c.evalMode != EvalMode.TRY =>
        of(c.child, column).flatMap { child =>
          val failOnOverflow = c.evalMode == EvalMode.ANSI
          (child.dataType, c.dataType) match {
            case (_: IntegralType | _: DecimalType | FloatType, DoubleType) =>
              Some(Converted(child, DoubleType, failOnOverflow))
            case (_: IntegralType | _: DecimalType, d: DecimalType) => Some(Converted(child, d, failOnOverflow))
            case (from: IntegralType, to) if integralWidth(to).exists(_ >= integralWidthOf(from)) =>
              Some(Converted(child, to, failOnOverflow))
            case _ => None
          }
        }
      case _ => None
    }
  }

  /** Spark's operands have the result's type, but a DECIMAL's precision and scale may differ. */
  private def sameKind(operand: DataType, result: DataType): Boolean = (operand, result) match {
    case (_: DecimalType, _: DecimalType) => true
    case _ => operand == result
  }
}
