// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.hbase.codec.KeyBounds
import org.apache.spark.sql.types.{BinaryType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Gathers one column's statistics from its values, one at a time. Strings and byte strings
 * longer than [[ColumnStatsBuilder.MaxBoundBytes]] are kept as bounds cut to that many bytes
 * (the max raised to the least value above every string with its prefix), as Parquet does.
 */
final class ColumnStatsBuilder(dataType: DataType) {
  private val ordering = ValueOrdering.of(dataType)
  private var min: Any = null
  private var max: Any = null
  private var nulls = 0L

  def add(value: Any): Unit =
    if (value == null) nulls += 1
    else {
      if (min == null || ordering.compare(value, min) < 0) min = ColumnStatsBuilder.copy(value)
      if (max == null || ordering.compare(value, max) > 0) max = ColumnStatsBuilder.copy(value)
    }

  def result: ColumnStats =
    if (min == null) ColumnStats(None, None, nulls)
    else ColumnStatsBuilder.bounded(dataType, ColumnStats(Some(min), Some(max), nulls))
}

object ColumnStatsBuilder {
  val MaxBoundBytes = 64

  /** Values that may point into a reused buffer are copied before they are kept. */
  private def copy(value: Any): Any = value match {
    case s: UTF8String => s.clone()
    case b: Array[Byte] => b.clone()
    case other => other
  }

  /** The statistics of the rows of both: bounds of the union, counts added. */
  def merge(dataType: DataType, a: ColumnStats, b: ColumnStats): ColumnStats = (a.min, b.min) match {
    case (None, _) => b.copy(nullCount = a.nullCount + b.nullCount)
    case (_, None) => a.copy(nullCount = a.nullCount + b.nullCount)
    case (Some(aMin), Some(bMin)) =>
      val ordering = ValueOrdering.of(dataType)
      ColumnStats(
        Some(if (ordering.compare(aMin, bMin) <= 0) aMin else bMin),
        Some(if (ordering.compare(a.max.get, b.max.get) >= 0) a.max.get else b.max.get),
        a.nullCount + b.nullCount,
        exact = a.exact && b.exact
      )
  }

  /** Long string bounds cut to a prefix, still bounding every value. */
  private def bounded(dataType: DataType, stats: ColumnStats): ColumnStats = dataType match {
    case StringType | BinaryType =>
      def bytes(v: Any) = v match {
        case s: UTF8String => s.getBytes
        case b: Array[Byte] => b
      }
      def back(b: Array[Byte]): Any = if (dataType == BinaryType) b else UTF8String.fromBytes(b)
      val (lo, hi) = (bytes(stats.min.get), bytes(stats.max.get))
      val loCut = if (lo.length > MaxBoundBytes) Some(back(lo.take(MaxBoundBytes))) else None
      val hiCut = if (hi.length > MaxBoundBytes) {
        val above = KeyBounds.prefixEnd(hi.take(MaxBoundBytes))
        if (above.isEmpty) None else Some(back(above))
      } else None
      if (loCut.isEmpty && hiCut.isEmpty) stats
      else ColumnStats(loCut.orElse(stats.min), hiCut.orElse(stats.max), stats.nullCount, exact = false)
    case _ => stats
  }
}
