// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.types._

class TableDefJsonSpec extends AnyFunSpec with Matchers {
  private val table = HBaseTableDef.fromStatement(
    "orders",
    HBaseTableName("shop", "orders_raw"),
    Seq(
      ("id", LongType, false, None),
      ("region", StringType, false, Some("sales region")),
      ("total", DecimalType(12, 2), false, None),
      ("placed", TimestampType, true, None)
    ),
    Seq("region", "id"),
    Seq("total" -> CellMapping(CellRef("f", "t")), "placed" -> CellMapping(CellRef("g", "p"))),
    TableFormat.Binary
  )

  describe("the stored form of a table definition") {
    it("is versioned JSON that reads back to the same definition") {
      val json = TableDefJson.toJson(table)
      json should include("\"version\":1")
      TableDefJson.fromJson(json) shouldBe table
    }

    it("holds the table's range indexes, built or not") {
      val indexed =
        table.withIndex(RangeIndexDef("by_total", Seq("total", "placed"), 500, generation = Some(1700000000123L)))
          .withIndex(RangeIndexDef("by_placed", Seq("placed"), RangeIndexDef.DefaultChunkRows, generation = None))
      TableDefJson.fromJson(TableDefJson.toJson(indexed)) shouldBe indexed
    }

    it("holds global indexes in version 4, so that an older plugin refuses the table rather than drop them") {
      val building =
        GlobalIndexDef.fromStatement(table, "by_placed", Seq("placed"), Map("include" -> "total"), _ => true)
      building shouldBe GlobalIndexDef(
        "by_placed",
        Seq("placed"),
        Seq("total"),
        HBaseTableName("shop", "orders_raw.by_placed.idx"),
        GlobalIndexState.Building
      )
      val indexed = table.withGlobalIndex(building)
        .withGlobalIndex(building.copy(name = "By_Total", columns = Seq("total"), covered = Nil))
        .withGlobalIndex(building.copy(state = GlobalIndexState.Ready, builtRows = Some(42L)))
      indexed.globalIndexes.map(i => (i.name, i.state, i.builtRows)) shouldBe
        Seq(("By_Total", GlobalIndexState.Building, None), ("by_placed", GlobalIndexState.Ready, Some(42L)))
      val json = TableDefJson.toJson(indexed)
      json should include("\"version\":4")
      TableDefJson.fromJson(json) shouldBe indexed
      TableDefJson.fromJson(
        TableDefJson.toJson(indexed.withoutGlobalIndex("by_total"))
      ).globalIndexes.map(_.name) shouldBe
        Seq("by_placed")
      intercept[UnreadableTableDef](TableDefJson.fromJson(json.replace("\"ready\"", "\"half\""))).problem should
        include("unknown global index state 'half'")
    }

    it("is written in the lowest format version that holds it, so that older plugins keep reading it") {
      TableDefJson.toJson(table) should include("\"version\":1")
      val keyOnly = HBaseTableDef.fromStatement(
        "edges",
        HBaseTableName("default", "edges"),
        Seq(("src", StringType, false, None), ("dst", StringType, false, None)),
        Seq("src", "dst"),
        Nil,
        TableFormat.Binary
      )
      keyOnly.markerFamily shouldBe Some("f")
      val json = TableDefJson.toJson(keyOnly)
      json should include("\"version\":2")
      json should include("\"markerFamily\":\"f\"")
      TableDefJson.fromJson(json) shouldBe keyOnly

      val timed = table.withColumn(HBaseColumn(
        "total_at",
        TimestampType,
        nullable = true,
        None,
        writeTimeOf = Some(CellRef("f", "t"))
      ))
      val timedJson = TableDefJson.toJson(timed)
      timedJson should include("\"version\":2")
      timedJson should include("\"writeTimeOf\":{\"family\":\"f\",\"qualifier\":\"t\"}")
      TableDefJson.fromJson(timedJson) shouldBe timed
    }

    it("holds a packed table's layout and each family's slots in version 3, which older plugins refuse to read") {
      val packed = HBaseTableDef.fromStatement(
        "orders",
        HBaseTableName("shop", "orders_packed"),
        Seq(
          ("id", LongType, false, None),
          ("total", DecimalType(12, 2), false, None),
          ("note", StringType, false, None)
        ),
        Seq("id"),
        Seq("total" -> CellMapping(CellRef("f", "t")), "note" -> CellMapping(CellRef("f", "n"))),
        TableFormat.Binary,
        Some(TableLayout.Packed)
      )
      packed.packedSlots shouldBe Map("f" -> Seq("t", "n"))
      // A column added later takes the next slot; a dropped one keeps its own.
      val altered = packed.withColumn(HBaseColumn("extra", IntegerType, nullable = true, Some(CellRef("f", "e"))))
        .withoutColumn("total")
      altered.packedSlots shouldBe Map("f" -> Seq("t", "n", "e"))
      val json = TableDefJson.toJson(altered)
      json should include("\"version\":3")
      json should include("\"layout\":\"PACKED\"")
      TableDefJson.fromJson(json) shouldBe altered
      val broken = json.replace("[\"t\",\"n\",\"e\"]", "[\"t\"]")
      (the[UnreadableTableDef] thrownBy TableDefJson.fromJson(broken)).getMessage shouldBe
        "The catalog entry packs cell f.n in no slot of its family"
    }

    it("records that CREATE TABLE made the HBase table without a new version: a reader ignoring it never purges") {
      val owning = table.copy(ownsHBaseTable = true)
      val json = TableDefJson.toJson(owning)
      json should include("\"version\":1")
      json should include("\"ownsHBaseTable\":true")
      TableDefJson.fromJson(json) shouldBe owning
      TableDefJson.toJson(table) should not include "ownsHBaseTable"
    }

    it("ignores fields it does not know, as optional additions of a later version") {
      val annotated = TableDefJson.toJson(table).replace("\"name\":", "\"laterOptionalField\":{\"x\":[1]},\"name\":")
      TableDefJson.fromJson(annotated) shouldBe table
    }

    it("refuses an entry of a newer format version, saying what to use instead") {
      val future = TableDefJson.toJson(table).replace("\"version\":1", "\"version\":99")
      intercept[UnreadableTableDef](TableDefJson.fromJson(future)).problem shouldBe
        "is in format version 99, and this spark-hbase-sql reads versions 1 to 4: a newer spark-hbase-sql wrote it; " +
        "use that version or newer"
    }
  }

  describe("the record of an HBase table's packed slots") {
    it("is versioned JSON that reads back to the same slots, and a broken one is refused naming the HBase table") {
      val hbaseTable = HBaseTableName("shop", "orders")
      val slots = Map("f" -> Seq("t", "n"), "g" -> Seq("x"))
      PackedSlotsRecord.fromJson(hbaseTable, PackedSlotsRecord.toJson(hbaseTable, slots)) shouldBe slots
      PackedSlotsRecord.toJson(hbaseTable, slots) should include("\"version\":1")
      for (
        (json, problem) <- Seq(
          "{" -> "is not valid JSON",
          "[1]" -> "is not a JSON object",
          "{\"version\":2,\"slots\":{}}" -> "is in format version 2, not 1",
          "{\"version\":1}" -> "has no slots",
          "{\"version\":1,\"slots\":{\"f\":[1]}}" -> "gives family 'f' no list of qualifiers"
        )
      ) withClue(json) {
        intercept[HBaseSQLException](PackedSlotsRecord.fromJson(hbaseTable, json)).getMessage shouldBe
          s"The catalog's record of the packed slots of HBase table 'shop:orders' $problem; CREATE TABLE over it " +
          "needs LAYOUT PACKED or LAYOUT CELLS until DROP TABLE ... PURGE or a new packed mapping replaces it"
      }
    }
  }
}
