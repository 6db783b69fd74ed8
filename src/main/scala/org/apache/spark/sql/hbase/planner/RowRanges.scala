// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.codec.{KeyBounds, KeyPrefixes, RowRange}

/**
 * Row ranges, sorted and disjoint: what key ranges mean in row key bytes, and how they split
 * among regions. A helper of the planner over row key bytes, not a plan of its own.
 */
final case class RowRanges(ranges: Seq[RowRange]) {
  private lazy val indexed = ranges.toIndexedSeq

  /** Whether some row of `rows` is in the ranges (a binary search: they are sorted and disjoint). */
  def overlaps(rows: RowRange): Boolean = !rows.isEmpty && {
    val first = firstEndingAfter(rows.start)
    first < indexed.size && (rows.stop.isEmpty || Bytes.compareTo(indexed(first).start, rows.stop) < 0)
  }

  /**
   * The part of the ranges inside the region [regionStart, regionEnd): found by a binary search,
   * so that each of many regions (or key boxes) costs the ranges it holds, not all of them.
   */
  def clip(regionStart: Array[Byte], regionEnd: Array[Byte]): Seq[RowRange] =
    indexed.view.drop(firstEndingAfter(regionStart))
      .takeWhile(r => regionEnd.isEmpty || Bytes.compareTo(r.start, regionEnd) < 0)
      .flatMap { r =>
        val start = if (Bytes.compareTo(r.start, regionStart) >= 0) r.start else regionStart
        val stop =
          if (regionEnd.isEmpty) r.stop
          else if (r.stop.isEmpty || Bytes.compareTo(regionEnd, r.stop) < 0) regionEnd
          else r.stop
        Some(RowRange(start, stop)).filterNot(_.isEmpty)
      }.toVector

  /** The first range that ends after `key`: those before it hold no row from `key` on. */
  private def firstEndingAfter(key: Array[Byte]): Int = {
    var (lo, hi) = (0, indexed.size)
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      val stop = indexed(mid).stop
      if (stop.nonEmpty && Bytes.compareTo(stop, key) <= 0) lo = mid + 1 else hi = mid
    }
    lo
  }

  /** The rows in both these ranges and `other`'s, in one pass over the two sorted lists. */
  def intersect(other: RowRanges): RowRanges = {
    def stopsBefore(a: RowRange, b: RowRange) = a.stop.nonEmpty &&
      (b.stop.isEmpty || Bytes.compareTo(a.stop, b.stop) <= 0)
    val (mine, theirs) = (indexed, other.ranges.toIndexedSeq)
    val out = Vector.newBuilder[RowRange]
    var (i, j) = (0, 0)
    while (i < mine.size && j < theirs.size) {
      val (a, b) = (mine(i), theirs(j))
      val start = if (Bytes.compareTo(a.start, b.start) >= 0) a.start else b.start
      val stop = if (stopsBefore(a, b)) a.stop else b.stop
      val both = RowRange(start, stop)
      if (!both.isEmpty) out += both
      if (stopsBefore(a, b)) i += 1 else j += 1
    }
    RowRanges(out.result())
  }
}

object RowRanges {
  val Everything: RowRanges = RowRanges(Seq(RowRange(KeyBounds.Open, KeyBounds.Open)))

  def apply(keyRanges: KeyRanges, codec: KeyPrefixes): RowRanges = keyRanges match {
    case KeyRanges.FullScan => Everything
    case KeyRanges.Ranges(ranges) => merge(ranges.map(rowRangeOf(_, codec)).filterNot(_.isEmpty))
  }

  /** The rows of one critical key range. */
  def rowRangeOf(range: KeyRange, codec: KeyPrefixes): RowRange = {
    val keyColumns = codec.keyTypes.size
    val base = codec.encodePrefix(range.prefix)
    range.last match {
      case None if range.prefix.size == keyColumns => RowRange(base, KeyBounds.successor(base))
      case None => RowRange(base, KeyBounds.prefixEnd(base))
      case Some(r) =>
        // The last key column may be stored without a terminator, so a value's keys are exactly
        // its bytes; elsewhere they are every key that starts with the value's encoding.
        val isLastColumn = range.prefix.size == keyColumns - 1
        def at(v: Any) = codec.encodePrefix(range.prefix :+ v)
        def after(v: Any) = if (isLastColumn) KeyBounds.successor(at(v)) else KeyBounds.prefixEnd(at(v))
        val start = r.lower match {
          case None => base
          case Some(Bound(v, true)) => at(v)
          case Some(Bound(v, false)) => after(v)
        }
        val stop = r.upper match {
          case None => KeyBounds.prefixEnd(base)
          case Some(Bound(v, true)) => after(v)
          case Some(Bound(v, false)) => at(v)
        }
        RowRange(start, stop)
    }
  }

  /** Sorted by start, with overlapping or touching ranges joined. */
  def merge(ranges: Seq[RowRange]): RowRanges = {
    val sorted = ranges.sortWith((a, b) => Bytes.compareTo(a.start, b.start) < 0)
    val out = Vector.newBuilder[RowRange]
    var current: Option[RowRange] = None
    sorted.foreach { r =>
      current match {
        case Some(c) if c.stop.isEmpty => // already open to the end
        case Some(c) if Bytes.compareTo(r.start, c.stop) <= 0 =>
          val stop = if (r.stop.isEmpty || Bytes.compareTo(r.stop, c.stop) > 0) r.stop else c.stop
          current = Some(RowRange(c.start, stop))
        case _ =>
          current.foreach(out += _)
          current = Some(r)
      }
    }
    current.foreach(out += _)
    RowRanges(out.result())
  }
}
