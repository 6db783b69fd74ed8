// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

/** One end of a range on a key column: a Catalyst value, included or not. */
final case class Bound(value: Any, inclusive: Boolean)

/** A range on one key column; a missing bound is open. */
final case class ColumnRange(lower: Option[Bound], upper: Option[Bound]) {
  def isPoint: Boolean = (lower, upper) match {
    case (Some(Bound(a, true)), Some(Bound(b, true))) => a == b
    case _ => false
  }

  override def toString: String =
    lower.fold("(-inf")(b => (if (b.inclusive) "[" else "(") + b.value) + ", " +
      upper.fold("+inf)")(b => b.value.toString + (if (b.inclusive) "]" else ")"))
}

object ColumnRange {
  val All: ColumnRange = ColumnRange(None, None)
  def point(value: Any): ColumnRange =
    ColumnRange(Some(Bound(value, inclusive = true)), Some(Bound(value, inclusive = true)))
}

/**
 * A critical range of the composite key: fixed values for the leading key columns, then a range
 * on the next one (or nothing: every row with that prefix). With a value for every key column it
 * is one row.
 */
final case class KeyRange(prefix: Seq[Any], last: Option[ColumnRange]) {
  override def toString: String = (prefix.map(v => s"=$v") ++ last.map(_.toString)).mkString("(", ", ", ")")
}

/**
 * The planner's answer over the key's values ([[KeyRangePlanner]]): which rows a scan must read,
 * all of them, or only those in the ranges.
 */
sealed trait KeyRanges {

  /** Every key range fixes the leading key column to a value, as point and prefix lookups do. */
  def lookups: Boolean = this match {
    case KeyRanges.Ranges(ranges) => ranges.forall(_.prefix.nonEmpty)
    case KeyRanges.FullScan => false
  }
}
object KeyRanges {
  case object FullScan extends KeyRanges
  final case class Ranges(ranges: Seq[KeyRange]) extends KeyRanges
}
