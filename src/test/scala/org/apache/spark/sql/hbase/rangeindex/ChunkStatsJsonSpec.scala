// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, InterpretedOrdering}
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.codec.{KeyGenerators, RowRange}
import org.apache.spark.sql.types.{DataType, IntegerType}

/** A chunk's statistics written as versioned JSON and read back. */
class ChunkStatsJsonSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  import KeyGenerators._

  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 2000)

  private def same(t: DataType, a: Option[Any], b: Option[Any]): Boolean = (a, b) match {
    case (Some(x), Some(y)) => InterpretedOrdering.forSchema(Seq(t)).compare(
        new GenericInternalRow(Array(x)),
        new GenericInternalRow(Array(y))
      ) == 0
    case _ => a.isEmpty && b.isEmpty
  }

  describe("chunk statistics as JSON") {
    it("read back exactly, for a column of every type, with or without values") {
      val cases = for {
        t <- Gen.oneOf(allTypes)
        bounds <- Gen.option(Gen.zip(valueOf(t), valueOf(t)))
        nulls <- Gen.choose(0L, 1000L)
        exact <- Gen.prob(0.5)
        start <- Gen.listOf(Gen.choose(Byte.MinValue, Byte.MaxValue))
      } yield (
        t,
        ChunkStats(
          RowRange(start.toArray, Array.emptyByteArray),
          1000L,
          Map("c" -> ColumnStats(bounds.map(_._1), bounds.map(_._2), nulls, exact))
        )
      )
      forAll(cases) { case (t, chunk) =>
        val back =
          ChunkStatsJson.fromJson(ChunkStatsJson.toJson(chunk, _ => t), name => Some(t).filter(_ => name == "c"))
        back.range.start.toSeq shouldBe chunk.range.start.toSeq
        back.range.stop shouldBe empty
        back.rowCount shouldBe 1000L
        val (s, expected) = (back.columns("c"), chunk.columns("c"))
        (s.nullCount, s.exact) shouldBe ((expected.nullCount, expected.exact))
        withClue(s"${t.sql} $expected read back as $s: ") {
          same(t, s.min, expected.min) shouldBe true
          same(t, s.max, expected.max) shouldBe true
        }
      }
    }

    it("refuse another format version, a column the index lacks, and a value that is not of its type") {
      val chunk = ChunkStats(RowRange(Array[Byte](1), Array[Byte](2)), 5, Map("c" -> ColumnStats(Some(1), Some(9), 0)))
      val json = ChunkStatsJson.toJson(chunk, _ => IntegerType)
      val later = json.replace("\"version\":1", "\"version\":2")
      (the[HBaseSQLException] thrownBy ChunkStatsJson.fromJson(later, _ => Some(IntegerType))).getMessage shouldBe
        s"Range index statistics have format version 2; this build reads version 1: $later"
      (the[HBaseSQLException] thrownBy ChunkStatsJson.fromJson(json, _ => None)).getMessage should
        include("name column 'c'")
      val wrongWidth = json.replaceAll("\"min\":\"[^\"]*\"", "\"min\":\"AQ==\"")
      (the[HBaseSQLException] thrownBy ChunkStatsJson.fromJson(wrongWidth, _ => Some(IntegerType))).getMessage should
        include("hold no INT in 'c.min'")
    }
  }
}
