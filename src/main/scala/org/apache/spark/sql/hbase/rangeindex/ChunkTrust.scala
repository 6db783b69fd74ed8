// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.types.DataType

/**
 * A write mark as read back from the range index table: the rows it covers, until when (in a
 * region server's clock) writes to them may land, and, for our own writers, the statistics of
 * every row written under it (`rows`: None for writers that recorded nothing).
 */
final case class MarkedWrite(range: RowRange, untilMs: Long, rows: Option[ChunkStats])

/**
 * Which chunks of a build the planner may prune by. A chunk built at `builtAtMs` (the server
 * time its build began, before it read a row) holds every row written before then. A write
 * after then is under a mark whose lease ends later, allowing for the clocks of region servers
 * to differ by `skewMs`. Over such a mark, a chunk is widened by the statistics the writer
 * recorded, or no longer trusted when it recorded none for one of the chunk's columns.
 */
object ChunkTrust {

  final case class Trusted(chunks: Seq[ChunkStats], untrusted: Int)

  def apply(
      chunks: Seq[ChunkStats],
      builtAtMs: Long,
      marks: Seq[MarkedWrite],
      skewMs: Long,
      typeOf: String => DataType
  ): Trusted = {
    val recent = marks.filter(_.untilMs >= builtAtMs - skewMs)
    val judged = chunks.map { chunk =>
      val over = recent.filter(_.range.overlaps(chunk.range))
      val recorded = over.flatMap(_.rows)
      if (recorded.size < over.size || recorded.exists(r => !chunk.columns.keySet.subsetOf(r.columns.keySet))) None
      else Some(recorded.foldLeft(chunk)(widen(_, _, typeOf)))
    }
    Trusted(judged.flatten, judged.count(_.isEmpty))
  }

  /** The chunk with the rows of `written` counted in. */
  def widen(chunk: ChunkStats, written: ChunkStats, typeOf: String => DataType): ChunkStats =
    chunk.copy(
      rowCount = chunk.rowCount + written.rowCount,
      columns = chunk.columns.map { case (name, stats) =>
        name -> ColumnStatsBuilder.merge(typeOf(name), stats, written.columns(name))
      }
    )
}
