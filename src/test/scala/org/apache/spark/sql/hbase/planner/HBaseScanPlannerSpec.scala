// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.Expression
import org.apache.spark.sql.hbase.metadata.{
  CellRef, HBaseColumn, HBaseTableDef, HBaseTableName, RangeIndexDef, TableFormat
}
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, RowRange}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.rangeindex.{ChunkStats, ColumnStats, IndexChunks}
import org.apache.spark.sql.hbase.server.ServerJar
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.logical.HBaseRelation

/**
 * A whole scan planned from a query, settings and a table's facts, with no HBase and no Spark
 * session: what execution and EXPLAIN are handed is decided here.
 */
class HBaseScanPlannerSpec extends AnyFunSpec with Matchers {
  private val table = HBaseTableDef(
    "t",
    HBaseTableName("default", "t"),
    Seq(
      HBaseColumn("k", IntegerType, nullable = false, None),
      HBaseColumn("v", IntegerType, nullable = true, Some(CellRef("f", "v")))
    ),
    Seq("k"),
    TableFormat.Binary
  )
  private val relation = HBaseRelation(table, HBaseClusterConf(Map.empty))
  private val Seq(k, v) = relation.output

  private def key(i: Int) = new BinaryKeyCodec(Seq(IntegerType)).encode(Seq(i))

  /** Three regions split at 1000 and 2000. */
  private val regions = Seq(
    RegionInfo(Array.emptyByteArray, key(1000), Some("rs1")),
    RegionInfo(key(1000), key(2000), Some("rs2")),
    RegionInfo(key(2000), Array.emptyByteArray, Some("rs3"))
  )
  private val settings = ScanSettings(
    pushdown = true,
    customFilter = true,
    maxKeyRanges = 10000,
    fetchSize = 1000,
    driverReadMaxKeyRanges = 1000
  )

  /** Facts that count how often the region servers were probed. */
  private class Counting(serverJar: Boolean) extends TableFacts {
    var probes = 0
    override def regions: Seq[RegionInfo] = HBaseScanPlannerSpec.this.regions
    override def serverFilter: Option[Int] = { probes += 1; Some(ServerJar.WIRE_VERSION).filter(_ => serverJar) }
    override def aggregator: Option[Int] = fail("a scan asked for the aggregation coprocessor")
  }

  private def plan(
      where: Option[Expression],
      facts: TableFacts,
      s: ScanSettings = settings,
      limit: Option[Int] = None
  ) =
    HBaseScanPlanner.plan(relation.copy(limit = limit), Seq(k, v), Seq(k, v), where, s, facts)

  describe("a scan plan over a range index") {
    val indexed =
      relation.copy(table = table.copy(indexes = Seq(RangeIndexDef("by_v", Seq("v"), 100, generation = Some(1L)))))

    /** Ten chunks of 100 keys each up to 1000, where v runs from 10 * first key to 10 * last key. */
    val chunks = (0 until 10).map { i =>
      ChunkStats(
        RowRange(
          if (i == 0) Array.emptyByteArray else key(i * 100),
          if (i == 9) Array.emptyByteArray else key(i * 100 + 100)
        ),
        100,
        Map("v" -> ColumnStats(Some(i * 1000), Some(i * 1000 + 990), 0))
      )
    }
    class Indexed(trusted: Seq[ChunkStats]) extends Counting(serverJar = true) {
      var asked = 0
      override def rangeIndex(index: RangeIndexDef): IndexChunks = { asked += 1; IndexChunks(index, chunks, trusted) }
    }
    def bytesOf(r: RowRange) = (r.start.toSeq, r.stop.toSeq)
    def planIndexed(where: Expression, facts: TableFacts, s: ScanSettings = settings) =
      HBaseScanPlanner.plan(indexed, Seq(k, v), Seq(k, v), Some(where), s, facts)

    it("cuts the chunks the clause rules out of the key ranges before pruning regions, and seeks over them") {
      val facts = new Indexed(chunks)
      val p = planIndexed(v >= 3000 && v < 5000, facts)
      p.regions.map(_.region.host) shouldBe Seq(Some("rs1"))
      p.regions.head.ranges.map(bytesOf) shouldBe Seq(bytesOf(RowRange(key(300), key(500))))
      p.rangeIndexes shouldBe Seq(RangeIndexUse(
        "by_v",
        chunksRead = 2,
        chunksTotal = 10,
        chunksSkipped = 8,
        untrusted = 0,
        rowsAtMost = Some(200)
      ))
      p.describe should include("range index by_v: 2 of 10 chunks")
      facts.asked shouldBe 1
      // The first and last chunks: three regions, 200 rows at most.
      val ends = v < 1000 || v >= 9000
      planIndexed(ends, facts).regions.size shouldBe 3
      planIndexed(ends, facts).driverRead shouldBe false
      withClue("a collect the index bounds to few enough rows reads on the driver: ")(
        planIndexed(ends, facts, settings.copy(driverReadMaxRows = 200)).driverRead shouldBe true
      )
    }

    it("reads untrusted chunks in full, and is not asked for a clause on other columns or with the index off") {
      val facts = new Indexed(chunks.filterNot(_.columns("v").min.contains(7000)))
      val p = planIndexed(v === 7500 || v === 1500, facts)
      p.regions.flatMap(_.ranges).map(bytesOf) shouldBe
        Seq(RowRange(key(100), key(200)), RowRange(key(700), key(800))).map(bytesOf)
      p.rangeIndexes.map(u => (u.chunksRead, u.untrusted, u.rowsAtMost)) shouldBe Seq((2, 1, None))
      planIndexed(k > 5, facts).rangeIndexes shouldBe empty
      planIndexed(v > 5, facts, settings.copy(rangeIndex = false)).rangeIndexes shouldBe empty
      facts.asked shouldBe 1
    }
  }

  describe("a scan plan") {
    it("prunes regions by the key ranges, checks in region servers what the keys leave, and says so on one line") {
      val facts = new Counting(serverJar = true)
      val p = plan(Some(k >= 1500 && v === 3), facts)
      p.regions.map(_.region.host) shouldBe Seq(Some("rs2"), Some("rs3"))
      p.regions.flatMap(_.residual) shouldBe empty
      p.regions.map(_.server.map(_.pushed.map(_.sql))) shouldBe Seq.fill(2)(Some(Seq("(v = 3)")))
      p.driverRead shouldBe false
      facts.probes shouldBe 1
      p.describe should include(
        "regions 2 of 3, 1 key ranges ([1500, +inf)), 0 Gets and 2 scans, residual (v = 3), in region servers (v = 3)"
      )
    }

    it("orders rows by the key as far as the output holds it, and only where byte order is SQL order") {
      val facts = new Counting(serverJar = true)
      val whole = HBaseScanPlanner.plan(relation, Seq(k, v), Seq(v, k), None, settings, facts)
      (whole.keyOrder, whole.wholeKey) shouldBe ((Seq(k), true))
      val valuesOnly = HBaseScanPlanner.plan(relation, Seq(v), Seq(v), None, settings, facts)
      (valuesOnly.keyOrder, valuesOnly.wholeKey) shouldBe ((Nil, false))
      val text = relation.copy(table = table.copy(format = TableFormat.StringFormat()))
      HBaseScanPlanner.plan(text, Seq(k, v), Seq(k, v), None, settings, facts).keyOrder shouldBe empty
    }

    it("leaves the residual to Spark when the region servers lack the server jar") {
      val p = plan(Some(k >= 1500 && v === 3), new Counting(serverJar = false))
      p.regions.map(_.residual.map(_.sql)) shouldBe Seq.fill(2)(Some("(v = 3)"))
      p.regions.flatMap(_.server) shouldBe empty
    }

    it("reads every region and checks everything in Spark with pushdown off, without probing") {
      val facts = new Counting(serverJar = true)
      val p = plan(Some(k === 5), facts, settings.copy(pushdown = false))
      p.keyRanges shouldBe KeyRanges.FullScan
      p.regions.size shouldBe 3
      p.regions.map(_.residual.map(_.sql)) shouldBe Seq.fill(3)(Some("(k = 5)"))
      facts.probes shouldBe 0
    }

    it("reads point lookups on the driver, up to the configured number of key ranges") {
      val lookups = Some(k.in(5, 1500, 2500))
      val p = plan(lookups, new Counting(serverJar = true))
      (p.gets, p.driverRead) shouldBe ((3, true))
      plan(lookups, new Counting(serverJar = true), settings.copy(driverReadMaxKeyRanges = 2)).driverRead shouldBe false
    }

    it("caps each region's rows at a LIMIT") {
      val p = plan(None, new Counting(serverJar = true), limit = Some(7))
      p.request.limits shouldBe ScanLimits(1000, Some(7))
      p.describe should endWith(", limit 7")
    }

    it("does not probe the region servers when no region is read") {
      val contradiction = plan(
        Some(k === 5 && k === 6),
        new TableFacts {
          override def regions: Seq[RegionInfo] = HBaseScanPlannerSpec.this.regions
          override def serverFilter: Option[Int] = fail("the planner probed the region servers")
          override def aggregator: Option[Int] = fail("a scan asked for the aggregation coprocessor")
        }
      )
      contradiction.regions shouldBe empty
    }
  }
}
