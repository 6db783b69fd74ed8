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

  private def filter(output: Seq[(String, String)], predicate: RowPredicate = null) =
    new SkipScanFilter(
      codec.sliceLayout,
      null,
      Array(Operand.key(0)),
      predicate,
      output.map(c => b(c._1)).toArray,
      output.map(c => b(c._2)).toArray
    )

  /** Each cell's return code, for a row with these cells, as HBase asks: row key first, then the cells in order. */
  private def codes(f: SkipScanFilter, cells: Seq[(String, String)]): Seq[ReturnCode] = {
    val row = codec.encode(Seq(1))
    val kvs = cells.map { case (family, qualifier) => new KeyValue(row, b(family), b(qualifier), b("v")) }
    f.filterRowKey(kvs.head) shouldBe false
    kvs.map(f.filterCell)
  }

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
      val withPredicate = filter(Seq("f" -> "c"), RowPredicate.isNull(0))
      codes(withPredicate, row).drop(2).toSet shouldBe Set(ReturnCode.SKIP)
    }
  }
}
