// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.rangeindex.ChunkStats

/**
 * Cuts out of a scan's row ranges the chunks whose statistics show that no row of theirs
 * satisfies the WHERE clause. Only whole chunks are removed, so rows outside every chunk (never
 * indexed, or in chunks not trusted) are read as before.
 */
object ChunkPruning {

  /** The ranges left, and how many of the chunks the ranges touched are still read. */
  final case class Pruned(ranges: RowRanges, chunksKept: Int, chunksTouched: Int) {
    def chunksSkipped: Int = chunksTouched - chunksKept
  }

  /**
   * @param chunks     trusted chunks, in any order
   * @param columnName the indexed column an attribute of the condition is, if any
   */
  def prune(
      ranges: RowRanges,
      chunks: Seq[ChunkStats],
      condition: Expression,
      columnName: Attribute => Option[String]
  ): Pruned = {
    val touched = chunks.filter(c => ranges.overlaps(c.range))
    val judged = ChunkPredicate.prepare(condition, columnName(_).isDefined)
    val (kept, ruledOut) =
      touched.partition(chunk => judged.mayHold(chunk.rowCount, a => columnName(a).flatMap(chunk.columns.get)))
    Pruned(subtractAll(ranges, ruledOut.map(_.range)), kept.size, touched.size)
  }

  /** The ranges without the rows of any of `cuts`, in one sweep over both in key order. */
  def subtractAll(ranges: RowRanges, cuts: Seq[RowRange]): RowRanges = {
    val sorted = cuts.filterNot(_.isEmpty).sortWith((a, b) => Bytes.compareTo(a.start, b.start) < 0).toIndexedSeq
    val out = Vector.newBuilder[RowRange]
    var next = 0 // the first cut that may still meet a range
    ranges.ranges.foreach { r =>
      while (next < sorted.size && sorted(next).stop.nonEmpty && Bytes.compareTo(sorted(next).stop, r.start) <= 0)
        next += 1
      var from: Option[Array[Byte]] = Some(r.start) // None: the rest of the range is cut
      var i = next
      while (from.isDefined && i < sorted.size && (r.stop.isEmpty || Bytes.compareTo(sorted(i).start, r.stop) < 0)) {
        val cut = sorted(i)
        if (Bytes.compareTo(cut.start, from.get) > 0) out += RowRange(from.get, cut.start)
        from = if (cut.stop.isEmpty) None else Some(maxStart(from.get, cut.stop))
        i += 1
      }
      from.map(RowRange(_, r.stop)).filterNot(_.isEmpty).foreach(out += _)
    }
    RowRanges(out.result())
  }

  /** The ranges without the rows of `cut`. */
  def subtract(ranges: RowRanges, cut: RowRange): RowRanges =
    if (cut.isEmpty) ranges
    else RowRanges(ranges.ranges.flatMap { r =>
      val before = RowRange(r.start, minStop(r.stop, cut.start))
      val after = if (cut.stop.isEmpty) None else Some(RowRange(maxStart(r.start, cut.stop), r.stop))
      (Seq(before).filter(_ => cut.start.nonEmpty) ++ after).filterNot(_.isEmpty)
    })

  private def maxStart(a: Array[Byte], b: Array[Byte]): Array[Byte] = if (Bytes.compareTo(a, b) >= 0) a else b

  /** The smaller of two stops, where an empty stop is the table's end. */
  private def minStop(a: Array[Byte], b: Array[Byte]): Array[Byte] =
    if (a.isEmpty) b else if (b.isEmpty) a else if (Bytes.compareTo(a, b) <= 0) a else b
}
