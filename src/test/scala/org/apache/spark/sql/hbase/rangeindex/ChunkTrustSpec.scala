// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.types.{DataType, IntegerType}

/** Which chunks of a build the planner may still prune by, once writes have been marked. */
class ChunkTrustSpec extends AnyFunSpec with Matchers {
  private def key(b: Int*): Array[Byte] = b.map(_.toByte).toArray
  private val open = Array.emptyByteArray
  private val typeOf: String => DataType = _ => IntegerType

  private def stats(min: Int, max: Int, nulls: Long = 0) = ColumnStats(Some(min), Some(max), nulls)
  private val chunks = Seq(
    ChunkStats(RowRange(open, key(10)), 5, Map("a" -> stats(0, 9))),
    ChunkStats(RowRange(key(10), key(20)), 5, Map("a" -> stats(10, 19))),
    ChunkStats(RowRange(key(20), open), 5, Map("a" -> stats(20, 29)))
  )
  private val builtAt = 1000000L

  private def trusted(marks: MarkedWrite*): Seq[RowRange] =
    ChunkTrust(chunks, builtAt, marks, skewMs = 100, typeOf).chunks.map(_.range)

  describe("a build's chunks") {
    it("are all trusted while no write is marked") {
      ChunkTrust(chunks, builtAt, Nil, 100, typeOf) shouldBe ChunkTrust.Trusted(chunks, 0)
    }

    it("are not trusted where a write without statistics was marked after the build began, allowing for clock skew") {
      val write = MarkedWrite(RowRange(key(12), key(13)), untilMs = builtAt - 50, rows = None)
      trusted(write) shouldBe Seq(chunks(0).range, chunks(2).range)
      ChunkTrust(chunks, builtAt, Seq(write), 100, typeOf).untrusted shouldBe 1
      withClue("a lease that ended before the build began, by more than the skew: ")(
        trusted(write.copy(untilMs = builtAt - 101)) shouldBe chunks.map(_.range)
      )
    }

    it("meet a mark only where their rows do: a range's stop is not in it, open ends reach the table's edges") {
      trusted(MarkedWrite(RowRange(key(5), key(10)), builtAt, None)) shouldBe chunks.drop(1).map(_.range)
      trusted(MarkedWrite(RowRange(key(20), key(20, 0)), builtAt, None)) shouldBe chunks.take(2).map(_.range)
      trusted(MarkedWrite(RowRange(key(30), open), builtAt, None)) shouldBe chunks.take(2).map(_.range)
      trusted(MarkedWrite(RowRange(open, open), builtAt, None)) shouldBe empty
      trusted(MarkedWrite(RowRange(key(15), key(15)), builtAt, None)) shouldBe chunks.map(_.range)
    }

    it("are widened by what our own writers recorded of their rows, and not trusted when a column is missing") {
      val recorded = ChunkStats(RowRange(key(12), key(25)), 3, Map("a" -> ColumnStats(Some(-4), Some(15), 2)))
      val result = ChunkTrust(chunks, builtAt, Seq(MarkedWrite(recorded.range, builtAt, Some(recorded))), 100, typeOf)
      result.untrusted shouldBe 0
      result.chunks.map(c => (c.rowCount, c.columns("a"))) shouldBe Seq(
        (5, stats(0, 9)),
        (8, ColumnStats(Some(-4), Some(19), 2)),
        (8, ColumnStats(Some(-4), Some(29), 2))
      )
      val lacking = recorded.copy(columns = Map("b" -> stats(1, 1)))
      trusted(MarkedWrite(recorded.range, builtAt, Some(lacking))) shouldBe Seq(chunks(0).range)
    }
  }
}
