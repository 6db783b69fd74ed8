// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.hadoop.hbase.{Cell, CellComparator, KeyValue}
import org.apache.hadoop.hbase.client.Result
import org.apache.hadoop.hbase.util.Bytes
import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn, HBaseTableDef, HBaseTableName, TableFormat}
import org.apache.spark.sql.types._

/** Reading table rows out of HBase Results, checked against HBase's own lookup of each column. */
class RowCodecSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 2000)

  // Columns in two families, declared out of HBase's column order; "a" sorts before "b", "q" before "q1".
  private val valueColumns = Seq(("b", "z"), ("a", "q1"), ("b", "c"), ("a", "q"), ("a", "m"), ("b", "a"))
    .zipWithIndex.map { case ((family, qualifier), i) =>
      HBaseColumn(s"v$i", LongType, nullable = true, Some(CellRef(family, qualifier)))
    }
  private val keyColumn = HBaseColumn("k", IntegerType, nullable = false, None)
  private val table =
    HBaseTableDef("t", HBaseTableName("default", "t"), keyColumn +: valueColumns, Seq("k"), TableFormat.Binary)
  private val codec = new RowCodec(table)
  private val rowKey = codec.keyCodec.encode(Seq(7))

  /** Some of the columns' cells, each in up to three versions, plus cells of columns the table lacks. */
  private val results: Gen[Result] = for {
    present <- Gen.someOf(valueColumns)
    versions <- Gen.listOfN(present.size, Gen.choose(1, 3))
    strangers <- Gen.someOf(Seq(("a", ""), ("a", "q0"), ("b", "b"), ("c", "x")))
  } yield {
    val cells = present.zip(versions).flatMap { case (c, n) =>
      (1 to n).map(v =>
        cell(c.cell.get.family, c.cell.get.qualifier, v, Bytes.toBytes(c.name.hashCode.toLong * 10 + v))
      )
    } ++ strangers.map { case (f, q) => cell(f, q, 1, Bytes.toBytes(-1L)) }
    // HBase has no row without a cell: a row of NULLs keeps the marker cell.
    val row = if (cells.isEmpty) Seq(cell(valueColumns.head.cell.get.family, "", 1, Array.emptyByteArray)) else cells
    Result.create(row.sorted(Ordering.comparatorToOrdering(CellComparator.getInstance())).toArray[Cell])
  }

  private def cell(family: String, qualifier: String, version: Long, value: Array[Byte]): Cell =
    new KeyValue(rowKey, Bytes.toBytes(family), Bytes.toBytes(qualifier), version, value)

  describe("a row decoder") {
    it("gives each requested column its newest cell, NULL where the row has none, in the order asked") {
      val requests = Gen.nonEmptyListOf(Gen.oneOf(keyColumn +: valueColumns)) // any order, repeats allowed
      forAll(results, requests) { (result, required) =>
        val expected = required.map { c =>
          if (c.isKey) 7: Any
          else Option(result.getColumnLatestCell(Bytes.toBytes(c.cell.get.family), Bytes.toBytes(c.cell.get.qualifier)))
            .map(cell => Bytes.toLong(cell.getValueArray, cell.getValueOffset, cell.getValueLength): Any).orNull
        }
        val row = codec.decoder(required)(result)
        required.indices.map(i => if (row.isNullAt(i)) null else row.get(i, required(i).dataType)) shouldBe expected
      }
    }

    it("reads a Result without cells as a row of NULLs") {
      val row = codec.decoder(valueColumns)(Result.EMPTY_RESULT)
      valueColumns.indices.forall(row.isNullAt) shouldBe true
    }
  }
}
