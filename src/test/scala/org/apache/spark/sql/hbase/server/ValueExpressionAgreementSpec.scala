// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.util.Random

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.SparkThrowable
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Add, AttributeReference, BindReferences, Cast, EvalMode, Expression, Literal, Multiply, NumericEvalContext, Subtract,
  UnaryMinus
}
import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.execution.HBaseAggregateRows
import org.apache.spark.sql.hbase.planner.{RegionRequests, ServerValue}
import org.apache.spark.sql.types._

/**
 * Arithmetic a region server computes for an aggregate agrees with Spark's: random expressions
 * over typed columns, in ANSI mode and not, give in the server jar's evaluator exactly the value
 * Catalyst's `eval` gives, the same NULL, or the same error.
 */
class ValueExpressionAgreementSpec extends AnyFunSpec with Matchers {
  private val columns = Seq(
    "i" -> IntegerType,
    "s" -> ShortType,
    "l" -> LongType,
    "d" -> DoubleType,
    "f" -> FloatType,
    "m" -> DecimalType(15, 2),
    "n" -> DecimalType(38, 6),
    "q" -> DecimalType(6, 1)
  )
  private val attributes = columns.map { case (name, t) => AttributeReference(name, t)() }
  private val tableColumns = columns.map { case (name, t) =>
    HBaseColumn(name, t, nullable = true, Some(CellRef("f", name)))
  }
  private def attribute(name: String) = attributes(columns.indexWhere(_._1 == name))

  private class Generator(random: Random) {
    private def pick[T](options: T*): T = options(random.nextInt(options.size))
    private def mode = if (random.nextBoolean()) EvalMode.ANSI else EvalMode.LEGACY
    private def context = NumericEvalContext(mode, allowDecimalPrecisionLoss = random.nextInt(4) > 0)
    private def decimalType = {
      val p = 1 + random.nextInt(38)
      DecimalType(p, random.nextInt(p + 1))
    }

    def int(depth: Int): Expression = random.nextInt(if (depth == 0) 3 else 7) match {
      case 0 => attribute("i")
      case 1 => Literal(pick(0, 1, -1, 7, Int.MaxValue, Int.MinValue, random.nextInt()))
      case 2 => Cast(attribute("s"), IntegerType, None, mode)
      case 3 => Add(int(depth - 1), int(depth - 1), context)
      case 4 => Subtract(int(depth - 1), int(depth - 1), context)
      case 5 => Multiply(int(depth - 1), int(depth - 1), context)
      case _ => UnaryMinus(int(depth - 1), random.nextBoolean())
    }

    def long(depth: Int): Expression = random.nextInt(if (depth == 0) 2 else 7) match {
      case 0 => attribute("l")
      case 1 => Literal(pick(0L, 3L, Long.MaxValue, Long.MinValue, random.nextLong(), random.nextInt().toLong))
      case 2 => Cast(int(depth - 1), LongType, None, mode)
      case 3 => Add(long(depth - 1), long(depth - 1), context)
      case 4 => Subtract(long(depth - 1), long(depth - 1), context)
      case 5 => Multiply(long(depth - 1), long(depth - 1), context)
      case _ => UnaryMinus(long(depth - 1), random.nextBoolean())
    }

    def double(depth: Int): Expression = random.nextInt(if (depth == 0) 3 else 9) match {
      case 0 => attribute("d")
      case 1 => Literal(pick(0.0, -0.0, 1.5, Double.NaN, Double.MaxValue, random.nextDouble() * 1e6))
      case 2 => Cast(attribute("f"), DoubleType, None, mode)
      case 3 => Cast(pick(int(depth - 1), long(depth - 1)), DoubleType, None, mode)
      case 4 => Cast(decimal(depth - 1), DoubleType, None, mode)
      case 5 => Add(double(depth - 1), double(depth - 1), context)
      case 6 => Subtract(double(depth - 1), double(depth - 1), context)
      case 7 => Multiply(double(depth - 1), double(depth - 1), context)
      case _ => UnaryMinus(double(depth - 1), random.nextBoolean())
    }

    def decimal(depth: Int): Expression = random.nextInt(if (depth == 0) 4 else 10) match {
      case 0 => attribute(pick("m", "n", "q"))
      case 1 | 2 =>
        val t = decimalType
        val digits = BigInt(t.precision * 4, random) % BigInt(10).pow(t.precision)
        Literal(Decimal(BigDecimal(if (random.nextBoolean()) digits else -digits, t.scale), t.precision, t.scale), t)
      case 3 => Literal(Decimal(1), DecimalType(1, 0))
      case 4 => Cast(pick(int(depth - 1), long(depth - 1)), decimalType, None, mode)
      case 5 => Cast(decimal(depth - 1), decimalType, None, mode)
      case 6 => Add(decimal(depth - 1), decimal(depth - 1), context)
      case 7 => Subtract(decimal(depth - 1), decimal(depth - 1), context)
      case 8 => Multiply(decimal(depth - 1), decimal(depth - 1), context)
      case _ => decimal(depth - 1) match {
          case narrow if narrow.dataType.asInstanceOf[DecimalType].precision <= 34 =>
            UnaryMinus(narrow, random.nextBoolean())
          case wide => wide // Spark negates it with 34 digits only: left to Spark
        }
    }

    def expression: Expression = {
      val depth = 1 + random.nextInt(3)
      pick(int(depth), long(depth), double(depth), decimal(depth))
    }

    /** A row of Catalyst values: extremes, NULLs, and the columns' widest values. */
    def row: Array[Any] = columns.map { case (_, t) =>
      if (random.nextInt(10) == 0) null
      else t match {
        case IntegerType => pick(0, 1, -2, Int.MaxValue, Int.MinValue, random.nextInt(), random.nextInt(100))
        case ShortType => pick(0.toShort, Short.MaxValue, Short.MinValue, random.nextInt(200).toShort)
        case LongType => pick(0L, Long.MaxValue, Long.MinValue, random.nextLong(), random.nextInt(1000).toLong)
        case DoubleType => pick(0.0, -0.0, Double.NaN, Double.NegativeInfinity, 1e300, random.nextGaussian() * 1e4)
        case FloatType => pick(0.0f, Float.MaxValue, Float.NaN, random.nextFloat() * 100)
        case d: DecimalType =>
          val digits = BigInt(d.precision * 4, random) %
            BigInt(10).pow(if (random.nextBoolean()) d.precision else 1 + random.nextInt(d.precision))
          Decimal(BigDecimal(if (random.nextBoolean()) digits else -digits, d.scale), d.precision, d.scale)
      }
    }.toArray
  }

  /** What an evaluation gave: a number as the server holds it, NULL, or the error class Spark reports. */
  private def outcome(evaluate: => Any): Any =
    try {
      evaluate match {
        case null => null
        case i: Int => BigDecimal(i)
        case l: Long => BigDecimal(l)
        case l: java.lang.Long => BigDecimal(l.longValue)
        case d: Double => if (d.isNaN) "NaN" else d + 0.0
        case d: java.lang.Double => if (d.isNaN) "NaN" else d.doubleValue + 0.0
        case d: Decimal => d.toBigDecimal
        case d: java.math.BigDecimal => BigDecimal(d)
      }
    } catch {
      case e: ValueExpression.OutOfRange => HBaseAggregateRows.sparkError(e).asInstanceOf[SparkThrowable].getCondition
      case e: SparkThrowable with Throwable => e.getCondition
    }

  describe("an expression a region server computes") {
    it("gives Catalyst's value, NULL or error for 20,000 random expressions and rows, ANSI mode on and off") {
      val random = new Random(41)
      val generator = new Generator(random)
      val indexOf = tableColumns.zipWithIndex.toMap
      val columnOf = (e: Expression) =>
        e match {
          case a: AttributeReference => Some(tableColumns(attributes.indexOf(a)))
          case _ => None
        }
      var failures, nulls = 0
      (1 to 20000).foreach { i =>
        val expression = generator.expression
        val server = ServerValue.of(expression, columnOf)
        withClue(s"#$i ${expression.sql}: ")(server should not be empty)
        val evaluator = RegionRequests.value(server.get, indexOf)
        val values = generator.row
        val operands: RowPredicate.Row = operand => {
          val v = values(operand)
          if (v == null) null else BinaryKeyCodec.comparable(columns(operand)._2, v)
        }
        val bound = BindReferences.bindReference(expression, attributes)
        val spark = outcome(bound.eval(InternalRow.fromSeq(values.toSeq)))
        withClue(
          s"#$i ${expression.sql} of ${expression.dataType.sql} (${expression.treeString}) over ${values.mkString(", ")}, server $evaluator: "
        ) {
          outcome(evaluator.eval(operands)) shouldBe spark
        }
        if (spark == null) nulls += 1
        if (spark.isInstanceOf[String] && spark != "NaN") failures += 1
      }
      withClue("errors and NULLs must both be exercised: ")((failures, nulls) should matchPattern {
        case (f: Int, n: Int) if f > 500 && n > 500 =>
      })
    }
  }
}
