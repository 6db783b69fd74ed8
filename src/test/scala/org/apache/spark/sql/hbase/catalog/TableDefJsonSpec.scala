package org.apache.spark.sql.hbase.catalog

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.types._

class TableDefJsonSpec extends AnyFunSpec with Matchers {
  private val table = HBaseTableDef.fromStatement(
    "orders", HBaseTableName("shop", "orders_raw"),
    Seq(("id", LongType, false, None), ("region", StringType, false, Some("sales region")),
      ("total", DecimalType(12, 2), false, None), ("placed", TimestampType, true, None)),
    Seq("region", "id"),
    Seq("total" -> CellRef("f", "t"), "placed" -> CellRef("g", "p")),
    TableFormat.Binary)

  describe("the stored form of a table definition") {
    it("is versioned JSON that reads back to the same definition") {
      val json = TableDefJson.toJson(table)
      json should include("\"version\":1")
      TableDefJson.fromJson(json) shouldBe table
    }

    it("holds the table's range indexes, built or not") {
      val indexed = table.withIndex(RangeIndexDef("by_total", Seq("total", "placed"), 500, generation = Some(1700000000123L)))
        .withIndex(RangeIndexDef("by_placed", Seq("placed"), RangeIndexDef.DefaultChunkRows, generation = None))
      TableDefJson.fromJson(TableDefJson.toJson(indexed)) shouldBe indexed
    }

    it("refuses an entry written in an unknown format version") {
      val future = TableDefJson.toJson(table).replace("\"version\":1", "\"version\":99")
      intercept[HBaseSqlException](TableDefJson.fromJson(future)).getMessage should include("version 99")
    }
  }
}
