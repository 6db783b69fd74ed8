// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.types._

/**
 * `CAST(key AS wider) op literal` says the same as `key op literal'` when the cast keeps order
 * and the literal is exactly a value of the key's type. Rewriting it lets the planner use the
 * comparison; a literal that falls between two key values is left alone, so it never prunes.
 */
object OrderPreservingCasts {

  def unwrap(condition: Expression, keys: Seq[Attribute]): Expression = {
    def isKey(e: Expression): Boolean = e match {
      case a: Attribute => keys.exists(_.semanticEquals(a))
      case _ => false
    }
    condition transform {
      case c: BinaryComparison => (c.left, c.right) match {
          case (cast @ Cast(k, to, _, _), v) if isKey(k) && keepsOrder(k.dataType, to) =>
            inKeyType(cast, v).map(x => c.withNewChildren(Seq(k, x))).getOrElse(c)
          case (v, cast @ Cast(k, to, _, _)) if isKey(k) && keepsOrder(k.dataType, to) =>
            inKeyType(cast, v).map(x => c.withNewChildren(Seq(x, k))).getOrElse(c)
          case _ => c
        }
      case in @ In(cast @ Cast(k, to, _, _), list) if isKey(k) && keepsOrder(k.dataType, to) =>
        val values = list.map(inKeyType(cast, _))
        if (values.forall(_.isDefined)) In(k, values.flatten) else in
    }
  }

  /** The literal `v` of the cast's type as a literal of the key's type, if it is exactly one. */
  private def inKeyType(cast: Cast, v: Expression): Option[Literal] =
    if (!v.foldable || !v.deterministic || v.dataType != cast.dataType) None
    else {
      val value = v.eval()
      if (value == null) None
      else {
        val keyType = cast.child.dataType
        val back = Cast(Literal(value, cast.dataType), keyType, cast.timeZoneId, EvalMode.TRY).eval()
        val there = if (back == null) null else cast.withNewChildren(Seq(Literal(back, keyType))).eval()
        if (there != null && there == value) Some(Literal(back, keyType)) else None
      }
    }

  /** Casts that are strictly increasing: a larger key always casts to a larger value. */
  private def keepsOrder(from: DataType, to: DataType): Boolean = (from, to) match {
    case (f: IntegralType, t: IntegralType) => width(f) < width(t)
    case (_: IntegralType, DoubleType) => from != LongType
    case (ByteType | ShortType, FloatType) => true
    case (f: IntegralType, t: DecimalType) => t.precision - t.scale >= DecimalType.forType(f).precision
    case (FloatType, DoubleType) => true
    case (f: DecimalType, t: DecimalType) => t.scale >= f.scale && t.precision - t.scale >= f.precision - f.scale
    case (DateType, TimestampType | TimestampNTZType) => true
    case _ => false
  }

  private def width(t: IntegralType): Int = t.defaultSize
}
