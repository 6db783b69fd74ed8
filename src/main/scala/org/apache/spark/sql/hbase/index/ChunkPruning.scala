package org.apache.spark.sql.hbase.index

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression}
import org.apache.spark.sql.hbase.planning.{RowRange, ScanRanges}

/**
 * Cuts out of a scan's row ranges the chunks whose statistics show that no row of theirs
 * satisfies the WHERE clause. Only whole chunks are removed, so rows outside every chunk (never
 * indexed, or in chunks not trusted) are read as before.
 */
object ChunkPruning {

  /** The ranges left, and how many of the chunks the ranges touched are still read. */
  final case class Pruned(ranges: ScanRanges, chunksKept: Int, chunksTouched: Int) {
    def chunksSkipped: Int = chunksTouched - chunksKept
  }

  /**
   * @param chunks     trusted chunks, in any order
   * @param columnName the indexed column an attribute of the condition is, if any
   */
  def prune(ranges: ScanRanges, chunks: Seq[ChunkStats], condition: Expression,
      columnName: Attribute => Option[String]): Pruned = {
    val touched = chunks.filter(c => overlaps(ranges, c.range))
    val (kept, ruledOut) = touched.partition { chunk =>
      ChunkPredicate.mayHold(condition, chunk.rowCount, a => columnName(a).flatMap(chunk.columns.get))
    }
    Pruned(ruledOut.map(_.range).foldLeft(ranges)(subtract), kept.size, touched.size)
  }

  private def overlaps(ranges: ScanRanges, chunk: RowRange): Boolean =
    ranges.ranges.exists(r => !intersection(r, chunk).isEmpty)

  private def intersection(a: RowRange, b: RowRange): RowRange =
    RowRange(maxStart(a.start, b.start), minStop(a.stop, b.stop))

  /** The ranges without the rows of `cut`. */
  def subtract(ranges: ScanRanges, cut: RowRange): ScanRanges =
    if (cut.isEmpty) ranges
    else ScanRanges(ranges.ranges.flatMap { r =>
      val before = RowRange(r.start, minStop(r.stop, cut.start))
      val after = if (cut.stop.isEmpty) None else Some(RowRange(maxStart(r.start, cut.stop), r.stop))
      (Seq(before).filter(_ => cut.start.nonEmpty) ++ after).filterNot(_.isEmpty)
    })

  private def maxStart(a: Array[Byte], b: Array[Byte]): Array[Byte] = if (Bytes.compareTo(a, b) >= 0) a else b

  /** The smaller of two stops, where an empty stop is the table's end. */
  private def minStop(a: Array[Byte], b: Array[Byte]): Array[Byte] =
    if (a.isEmpty) b else if (b.isEmpty) a else if (Bytes.compareTo(a, b) <= 0) a else b
}
