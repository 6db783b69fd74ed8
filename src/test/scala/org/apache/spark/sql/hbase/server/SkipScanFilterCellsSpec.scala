// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import org.apache.hadoop.hbase.KeyValue
import org.apache.hadoop.hbase.filter.Filter.ReturnCode
import org.apache.hadoop.hbase.util.Bytes
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.IntegerType

/** Which cells of a row the skip-scan filter lets through, without HBase: a row's cells arrive sorted by family and qualifier. */
class SkipScanFilterCellsSpec extends AnyFunSpec with Matchers {
  private val codec = new BinaryKeyCodec(Seq(IntegerType))
  private val b = Bytes.toBytes(_: String)

  // Operand 0 is the key, operand 1 the cell f:c (in every row below), operand 2 the cell g:z (in none).
  private val operands =
    Array(
      Operand.key(0),
      Operand.cell(b("f"), b("c"), CellType.INT, 0, 0),
      Operand.cell(b("g"), b("z"), CellType.INT, 0, 0)
    )

  private def filter(output: Seq[(String, String)], predicate: RowPredicate = null) =
    new SkipScanFilter(
      codec.sliceLayout,
      null,
      operands,
      predicate,
      output.map(c => b(c._1)).toArray,
      output.map(c => b(c._2)).toArray
    )

  /** Each cell's return code, for a row with these cells, as HBase asks: row key first, then the cells in order. */
  private def codes(f: SkipScanFilter, cells: Seq[(String, String)]): Seq[ReturnCode] = {
    val kvs = keyValues(cells)
    f.filterRowKey(kvs.head) shouldBe false
    kvs.map(f.filterCell)
  }

  /** The row's cells, each holding the INT 7. */
  private def keyValues(cells: Seq[(String, String)]): Seq[KeyValue] = {
    val row = codec.encode(Seq(1))
    cells.map { case (family, qualifier) => new KeyValue(row, b(family), b(qualifier), Bytes.toBytes(7)) }
  }

  private def int(v: Int) = BinaryKeyCodec.comparable(IntegerType, v)

  private val row = Seq("f" -> "a", "f" -> "c", "f" -> "e", "g" -> "b", "g" -> "d")

  describe("the cells a scan reads") {
    it("are the output cells, given in any order, and the row's first cell without its value") {
      codes(filter(Seq("g" -> "b", "f" -> "c")), row) shouldBe
        Seq(ReturnCode.INCLUDE, ReturnCode.INCLUDE, ReturnCode.SKIP, ReturnCode.INCLUDE, ReturnCode.NEXT_ROW)
    }

    it("end the row once its last output cell has passed, even when the row lacks it") {
      codes(filter(Seq("f" -> "b")), row) shouldBe Seq(
        ReturnCode.INCLUDE,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW
      )
      withClue("count(*) reads the first cell only: ")(codes(filter(Nil), row).tail.toSet shouldBe
        Set(ReturnCode.NEXT_ROW))
    }

    it("start again with each row, and keep going past the last output cell when a predicate reads cells") {
      val f = filter(Seq("f" -> "c"))
      codes(f, row)
      f.reset()
      codes(f, row).take(2) shouldBe Seq(ReturnCode.INCLUDE, ReturnCode.INCLUDE)
      val withPredicate = filter(Seq("f" -> "c"), RowPredicate.isNull(2))
      codes(withPredicate, row).drop(2).toSet shouldBe Set(ReturnCode.SKIP)
    }
  }

  describe("a row's predicate") {
    it("ends the row at the cell that rules it out, and leaves the row out") {
      val f = filter(Seq("f" -> "a", "g" -> "d"), RowPredicate.compare("=", 1, int(8)))
      codes(f, row) shouldBe Seq(
        ReturnCode.INCLUDE,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW
      )
      f.filterRow() shouldBe true
    }

    it("rules a row out at its key when the key operands settle it, whatever the cells hold") {
      val f = filter(Nil, RowPredicate.and(RowPredicate.compare(">", 0, int(1)), RowPredicate.isNull(2)))
      f.filterRowKey(keyValues(row).head) shouldBe true
      val matching = filter(Nil, RowPredicate.and(RowPredicate.compare("=", 0, int(1)), RowPredicate.isNull(2)))
      matching.filterRowKey(keyValues(row).head) shouldBe false
    }

    it("rules a row out once its value is UNKNOWN or FALSE, before the cells that pick which") {
      // f:c = 8 is FALSE, so f:c = 8 AND g:z = 1 is FALSE, whatever g:z holds, from f:c on.
      val f = filter(
        Seq("g" -> "d"),
        RowPredicate.and(RowPredicate.compare("=", 1, int(8)), RowPredicate.compare("=", 2, int(1)))
      )
      codes(f, row).drop(1).toSet shouldBe Set(ReturnCode.NEXT_ROW)
    }

    it("ends a matching row after its last output cell once the cells read settle it, and keeps it") {
      val f = filter(Seq("f" -> "a"), RowPredicate.compare("=", 1, int(7)))
      codes(f, row) shouldBe Seq(
        ReturnCode.INCLUDE,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW,
        ReturnCode.NEXT_ROW
      )
      f.filterRow() shouldBe false
      val undecided =
        filter(Seq("f" -> "a"), RowPredicate.or(RowPredicate.compare("=", 1, int(8)), RowPredicate.isNull(2)))
      codes(undecided, row).drop(1).toSet shouldBe Set(ReturnCode.SKIP)
      undecided.filterRow() shouldBe false
    }
  }
}
