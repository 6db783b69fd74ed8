// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}

/**
 * Where a read through a global index begins a scan of its own inside an index region, so that
 * the ranges of one region that hold many bytes are read in parallel parts rather than by one
 * scanner, which one region server answers a call at a time. Phoenix cuts its scans at the
 * guideposts of its statistics; without statistics of the index, the bytes HBase says a region
 * holds are taken as spread evenly over the region's keys, and the ranges' share of them is found
 * by interpolating keys within the region. A wrong guess costs parts of uneven size, never rows:
 * the parts together read exactly the ranges.
 */
object IndexReadSplits {

  /**
   * The keys, ascending, at which to cut `rows` (an index lookup's ranges) into parts: in each
   * region of `facts` where the ranges hold about `partBytes` or more, as many parts as they hold
   * `partBytes` (at most `maxParts`), each of about as many bytes; none where `partBytes` is 0,
   * nor in the first and the last region, whose keys have no bound to interpolate from on one side.
   */
  def plan(rows: RowRanges, facts: IndexTableFacts, partBytes: Long, maxParts: Int): Seq[Array[Byte]] =
    if (partBytes <= 0 || maxParts < 2 || facts.regions.isEmpty || rows.ranges.isEmpty) Nil
    else {
      val regionBytes = BigDecimal(facts.bytes) / facts.regions.size
      facts.regions.filter(r => r.startKey.nonEmpty && r.endKey.nonEmpty).flatMap { region =>
        val place = new KeyPlace(region.startKey, region.endKey)
        val ranges = rows.clip(region.startKey, region.endKey)
        val spans = ranges.map(place.span)
        val regionSpan = place.span(RowRange(region.startKey, region.endKey))
        if (spans.exists(_.isEmpty) || regionSpan.forall(_ <= 0)) Nil
        else {
          val span = spans.flatten.sum
          val bytes = regionBytes * BigDecimal(span) / BigDecimal(regionSpan.get)
          val parts = (bytes / partBytes).toBigInt.min(maxParts).toInt
          if (parts < 2) Nil else cuts(ranges.zip(spans.flatten), place, span, parts)
        }
      }
    }

  /** `ranges` in the parts the keys `splits` (ascending) cut them into, in key order, none empty. */
  def parts(ranges: Seq[RowRange], splits: Seq[Array[Byte]]): Seq[Seq[RowRange]] =
    if (splits.isEmpty) Seq(ranges)
    else {
      val all = RowRanges(ranges)
      val bounds = KeyBounds.Open +: splits :+ KeyBounds.Open
      bounds.sliding(2).map { case Seq(from, until) => all.clip(from, until) }.filter(_.nonEmpty).toVector
    }

  /** The keys that cut `ranges` (with their spans, summing to `span`) into `parts` parts of equal span. */
  private def cuts(ranges: Seq[(RowRange, BigInt)], place: KeyPlace, span: BigInt, parts: Int): Seq[Array[Byte]] = {
    val found = Vector.newBuilder[Array[Byte]]
    var before = BigInt(0) // the span of the ranges before the current one
    var next = 1 // the cut to place next
    ranges.foreach { case (range, rangeSpan) =>
      while (next < parts && span * next / parts - before < rangeSpan) {
        val at = span * next / parts - before
        // A cut where the ranges before this one end is made at its start.
        if (at <= 0) { if (before > 0) found += range.start }
        else {
          val key = place.keyAt(place.of(range.start) + at)
          if (Bytes.compareTo(key, range.start) > 0 && Bytes.compareTo(key, range.stop) < 0) found += key
        }
        next += 1
      }
      before += rangeSpan
    }
    found.result()
  }

  /** Where a key lies in the region [start, end): the 8 bytes after the prefix the region's keys share, a number. */
  private final class KeyPlace(start: Array[Byte], end: Array[Byte]) {
    private val prefix: Array[Byte] = start.zip(end).takeWhile { case (a, b) => a == b }.map(_._1)
    private val Width = 8

    def of(key: Array[Byte]): BigInt = (0 until Width).foldLeft(BigInt(0)) { (n, i) =>
      val at = prefix.length + i
      (n << 8) + (if (at < key.length) key(at) & 0xff else 0)
    }

    /** The span of a range of the region, None where a bound is outside it (does not start with its prefix). */
    def span(range: RowRange): Option[BigInt] = {
      def inside(key: Array[Byte]) = Bytes.startsWith(key, prefix)
      if (!inside(range.start) || !inside(range.stop)) None else Some(of(range.stop) - of(range.start))
    }

    def keyAt(place: BigInt): Array[Byte] = {
      val bytes = place.toByteArray.takeRight(Width)
      prefix ++ Array.fill[Byte](Width - bytes.length)(0) ++ bytes
    }
  }
}
