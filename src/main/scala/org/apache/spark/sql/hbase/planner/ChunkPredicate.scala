// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.codec.KeyBounds
import org.apache.spark.sql.hbase.rangeindex.{ColumnStats, ValueOrdering}
import org.apache.spark.sql.types.{AtomicType, BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Whether a WHERE clause may hold on some row of a chunk, judged from the chunk's statistics
 * alone. Each part of the clause gets the outcomes some row of the chunk might give it: TRUE,
 * FALSE, or neither (NULL, which AND, OR and NOT never turn into TRUE or FALSE). The flags
 * over-approximate what the rows really give, so a chunk that cannot give TRUE holds no
 * matching row. What the statistics cannot judge may give anything.
 */
object ChunkPredicate {

  private final case class Outcomes(canBeTrue: Boolean, canBeFalse: Boolean) {
    def unary_! : Outcomes = Outcomes(canBeFalse, canBeTrue)
  }
  private val Anything = Outcomes(canBeTrue = true, canBeFalse = true)
  private val OnlyNull = Outcomes(canBeTrue = false, canBeFalse = false)

  /**
   * Whether `condition` may be TRUE on a row of a chunk of `rowCount` rows whose indexed
   * columns have the statistics `statsOf` gives (None: not indexed).
   */
  def mayHold(condition: Expression, rowCount: Long, statsOf: Attribute => Option[ColumnStats]): Boolean =
    prepare(condition, a => statsOf(a).isDefined).mayHold(rowCount, statsOf)

  /** The condition made ready to be judged against many chunks whose statistics cover the columns `indexed` picks. */
  def prepare(condition: Expression, indexed: Attribute => Boolean): Prepared =
    new Prepared(OrderPreservingCasts.unwrap(condition, condition.references.toSeq.filter(indexed)))

  final class Prepared private[ChunkPredicate] (condition: Expression) {
    def mayHold(rowCount: Long, statsOf: Attribute => Option[ColumnStats]): Boolean =
      rowCount > 0 && new Judge(statsOf).outcomes(condition).canBeTrue
  }

  private final class Judge(statsOf: Attribute => Option[ColumnStats]) {

    def outcomes(e: Expression): Outcomes = e match {
      case And(a, b) =>
        val (x, y) = (outcomes(a), outcomes(b))
        Outcomes(x.canBeTrue && y.canBeTrue, x.canBeFalse || y.canBeFalse)
      case Or(a, b) =>
        val (x, y) = (outcomes(a), outcomes(b))
        Outcomes(x.canBeTrue || y.canBeTrue, x.canBeFalse && y.canBeFalse)
      case Not(a) => !outcomes(a)
      case IsNull(Column(s)) => Outcomes(s.nullCount > 0, hasValues(s))
      case IsNotNull(Column(s)) => Outcomes(hasValues(s), s.nullCount > 0)
      case c: BinaryComparison => (c.left, c.right) match {
          case (col @ Column(s), v) if isConstant(v, col) => comparison(c, s, v.eval(), flipped = false)
          case (v, col @ Column(s)) if isConstant(v, col) => comparison(c, s, v.eval(), flipped = true)
          case _ => Anything
        }
      case In(col @ Column(s), list) if list.forall(isConstant(_, col)) => among(col.dataType, s, list.map(_.eval()))
      case InSet(col @ Column(s), set) => among(col.dataType, s, set.toSeq)
      case StartsWith(Column(s), p) if p.foldable && p.deterministic && p.dataType == StringType && p.eval() != null =>
        startsWith(s, p.eval().asInstanceOf[UTF8String])
      case other if other.foldable && other.deterministic && other.dataType == BooleanType =>
        other.eval() match {
          case true => Outcomes(canBeTrue = true, canBeFalse = false)
          case false => Outcomes(canBeTrue = false, canBeFalse = true)
          case _ => OnlyNull
        }
      case _ => Anything
    }

    /** An indexed column whose statistics follow Spark's order for its type. */
    private object Column {
      def unapply(e: Expression): Option[ColumnStats] = e match {
        case a: Attribute if ordered(a.dataType) => statsOf(a)
        case _ => None
      }
    }

    /** Whether the chunk has a non-NULL value; min and max say so, whatever the counts say. */
    private def hasValues(s: ColumnStats): Boolean = s.min.isDefined

    /** `column op v`, or `v op column` when flipped; NULLs give NULL, except to `<=>`. */
    private def comparison(c: BinaryComparison, s: ColumnStats, v: Any, flipped: Boolean): Outcomes = {
      val nullSafe = c.isInstanceOf[EqualNullSafe]
      if (v == null) return if (nullSafe) Outcomes(s.nullCount > 0, hasValues(s)) else OnlyNull
      val onValues =
        if (!hasValues(s)) OnlyNull
        else {
          val ordering = ValueOrdering.of(c.left.dataType)
          val (lo, hi) = (s.min.get, s.max.get)
          def cmp(a: Any, b: Any) = ordering.compare(a, b)
          (c, flipped) match {
            case (_: EqualTo | _: EqualNullSafe, _) =>
              Outcomes(cmp(lo, v) <= 0 && cmp(v, hi) <= 0, !(s.exact && cmp(lo, v) == 0 && cmp(hi, v) == 0))
            case (_: LessThan, false) | (_: GreaterThan, true) => Outcomes(cmp(lo, v) < 0, cmp(hi, v) >= 0)
            case (_: LessThanOrEqual, false) | (_: GreaterThanOrEqual, true) =>
              Outcomes(cmp(lo, v) <= 0, cmp(hi, v) > 0)
            case (_: GreaterThan, false) | (_: LessThan, true) => Outcomes(cmp(hi, v) > 0, cmp(lo, v) <= 0)
            case (_: GreaterThanOrEqual, false) | (_: LessThanOrEqual, true) =>
              Outcomes(cmp(hi, v) >= 0, cmp(lo, v) < 0)
            case _ => Anything
          }
        }
      // A NULL compared with <=> to a value is FALSE.
      if (nullSafe) Outcomes(onValues.canBeTrue, onValues.canBeFalse || s.nullCount > 0) else onValues
    }

    /** IN: TRUE on a listed value; other values give FALSE, or NULL when the list holds NULL. */
    private def among(dataType: DataType, s: ColumnStats, values: Seq[Any]): Outcomes =
      if (!hasValues(s)) OnlyNull
      else {
        val ordering = ValueOrdering.of(dataType)
        Outcomes(
          values.exists(v => v != null && ordering.compare(s.min.get, v) <= 0 && ordering.compare(v, s.max.get) <= 0),
          canBeFalse = true
        )
      }

    /** The strings starting with p are [p, end of p's prefixes): the chunk may hold one when its range meets that. */
    private def startsWith(s: ColumnStats, p: UTF8String): Outcomes =
      if (!hasValues(s)) OnlyNull
      else {
        val end = KeyBounds.prefixEnd(p.getBytes)
        val meets = s.max.get.asInstanceOf[UTF8String].compareTo(p) >= 0 &&
          (end.isEmpty || s.min.get.asInstanceOf[UTF8String].compareTo(UTF8String.fromBytes(end)) < 0)
        Outcomes(meets, canBeFalse = true)
      }
  }

  private def isConstant(v: Expression, column: Expression): Boolean =
    v.foldable && v.deterministic && v.dataType == column.dataType

  /** Types whose statistics follow Spark's order; a collated string compares otherwise. */
  private def ordered(t: DataType): Boolean = t match {
    case s: StringType => s == StringType
    case _ => t.isInstanceOf[AtomicType]
  }
}
