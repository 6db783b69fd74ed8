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
    override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] = {
      probes += 1
      read.map(_.serverName -> Some(ServerJar.WIRE_VERSION).filter(_ => serverJar)).toMap
    }
    override def aggregator(through: Seq[RegionInfo]): Option[Int] =
      fail("a scan asked for the aggregation coprocessor")
  }

  /** Facts in which each region server (named by its host) said what `said` has of it, if anything. */
  private class Servers(said: Map[String, Option[Int]]) extends TableFacts {
    var asked = Seq.empty[Seq[String]]
    override def regions: Seq[RegionInfo] = HBaseScanPlannerSpec.this.regions
    override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] = {
      asked :+= read.map(_.serverName)
      read.flatMap(r => said.get(r.host.get).map(r.serverName -> _)).toMap
    }
    override def aggregator(through: Seq[RegionInfo]): Option[Int] =
      fail("a scan asked for the aggregation coprocessor")
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
      p.describe should include(", limit 7")
    }

    it("reads the regions of a region server that refused the server jar without it, and the others' through it") {
      // The first region's server lacks the jar: the other regions keep their filter.
      val facts =
        new Servers(Map("rs1" -> None, "rs2" -> Some(ServerJar.WIRE_VERSION), "rs3" -> Some(ServerJar.WIRE_VERSION)))
      val p = plan(Some(v === 3), facts)
      p.regions.map(_.server.map(_.pushed.map(_.sql))) shouldBe Seq(None, Some(Seq("(v = 3)")), Some(Seq("(v = 3)")))
      p.regions.map(_.residual.map(_.sql)) shouldBe Seq(Some("(v = 3)"), None, None)
      p.regions.flatMap(_.server).forall(_.wire.isDefined) shouldBe true
      p.request.wireVersion shouldBe ServerJar.WIRE_VERSION
      p.describe should include("in region servers (v = 3), 1 region read without the server jar")
      facts.asked shouldBe Seq(regions.map(_.serverName))
    }

    it("reads through the server jar the regions of a region server that has not answered, until it refuses") {
      // rs2's probe failed or timed out: that says nothing of its jar.
      val p = plan(Some(v === 3), new Servers(Map("rs1" -> Some(ServerJar.WIRE_VERSION), "rs3" -> None)))
      p.regions.map(_.server.isDefined) shouldBe Seq(true, true, false)
      p.describe should include(", 1 region read without the server jar")
      val unknown = plan(Some(v === 3), new Servers(Map.empty))
      unknown.regions.map(_.server.isDefined) shouldBe Seq(true, true, true)
      unknown.request.wireVersion shouldBe ServerJar.WIRE_VERSION
      unknown.describe should not include "without the server jar"
    }

    it("writes the newest wire version a region server runs, reading without it the regions of older ones") {
      val older = ServerJar.WIRE_VERSION - 1
      val facts = new Servers(Map("rs1" -> Some(ServerJar.WIRE_VERSION), "rs2" -> Some(older), "rs3" -> None))
      val p = plan(Some(v === 3), facts)
      p.request.wireVersion shouldBe ServerJar.WIRE_VERSION
      p.regions.map(_.server.isDefined) shouldBe Seq(true, false, false)
      p.describe should include(", 2 regions read without the server jar")
      // Capped at the older version, as during a rolling upgrade, both servers with a jar filter.
      val capped = plan(Some(v === 3), facts, settings.copy(wireVersion = older))
      capped.request.wireVersion shouldBe older
      capped.regions.map(_.server.isDefined) shouldBe Seq(true, true, false)
    }

    it("reads every region without the server jar when each region server refused it, and says so") {
      val p = plan(Some(v === 3), new Servers(Map("rs1" -> None, "rs2" -> None, "rs3" -> None)))
      p.regions.flatMap(_.server) shouldBe empty
      p.regions.map(_.residual.map(_.sql)) shouldBe Seq.fill(3)(Some("(v = 3)"))
      p.describe should include("residual (v = 3), 3 regions read without the server jar")
    }

    it("keeps the server filter in the shape an aggregate starts from, whose reads fall back per region") {
      val facts = new Servers(Map("rs1" -> None, "rs2" -> Some(ServerJar.WIRE_VERSION)))
      val shaped = HBaseScanPlanner.shape(relation, Seq(k, v), Seq(k, v), Some(v === 3), settings, facts)
      shaped.regions.map(_.server.isDefined) shouldBe Seq(true, true, true)
      shaped.regionsWithoutServerJar shouldBe 1
    }

    it("probes only the region servers of the regions read") {
      val facts = new Servers(Map.empty)
      plan(Some(k >= 1500 && v === 3), facts)
      facts.asked shouldBe Seq(regions.drop(1).map(_.serverName))
    }

    it("tells a restarted region server from the one before by its start code") {
      val before = RegionInfo(Array.emptyByteArray, Array.emptyByteArray, Some("Host-1"), Some(16020), Some(100L))
      before.serverName shouldBe "host-1,16020,100"
      before.copy(startCode = Some(200L)).serverName should not equal before.serverName
    }

    it("does not probe the region servers when no region is read") {
      val contradiction = plan(
        Some(k === 5 && k === 6),
        new TableFacts {
          override def regions: Seq[RegionInfo] = HBaseScanPlannerSpec.this.regions
          override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] =
            fail("the planner probed the region servers")
          override def aggregator(through: Seq[RegionInfo]): Option[Int] =
            fail("a scan asked for the aggregation coprocessor")
        }
      )
      contradiction.regions shouldBe empty
    }
  }

  describe("the tasks of a scan") {
    val mb = 1024L * 1024
    def sized(bytes: Long) = relation.copy(sizeInBytes = Some(BigInt(bytes)))
    def planSized(bytes: Long, where: Option[Expression], s: ScanSettings) =
      HBaseScanPlanner.plan(sized(bytes), Seq(k, v), Seq(k, v), where, s, new Counting(serverJar = true))
    val packing = settings.copy(taskMaxBytes = 128 * mb, minTasks = 2)

    it("are fewer than the regions for a read small for them, consecutive regions in key order each, as EXPLAIN says") {
      val p = planSized(30 * mb, Some(k > 5), packing.copy(minTasks = 1))
      p.tasks shouldBe Some(RegionTasks(Seq(3), BigInt(30 * mb)))
      p.partitions.map(_.map(_.region.host.get)) shouldBe Seq(Seq("rs1", "rs2", "rs3"))
      p.reversedRead.partitions.map(_.map(_.region.host.get)) shouldBe Seq(Seq("rs3", "rs2", "rs1"))
      p.describe should include("regions 3 of 3, 1 key ranges ((5, +inf)), 0 Gets and 3 scans")
      p.describe should include(", in one task of 30 MB at most, columns [k, v]")
      planSized(12 * mb, None, packing).describe should include(", in 2 tasks of 8 MB at most each, columns")
    }

    it("are at least Spark's default parallelism, unless each would read under 8 MB") {
      planSized(12 * mb, None, packing).tasks.map(_.regionsPerTask) shouldBe Some(Seq(2, 1))
      planSized(6 * mb, None, packing).tasks.map(_.regionsPerTask) shouldBe Some(Seq(3))
      planSized(30 * mb, None, packing).tasks shouldBe None
    }

    it("are a task per region for large regions, a read of unknown size, or with the setting 0") {
      planSized(600 * mb, None, packing).tasks shouldBe None
      HBaseScanPlanner.plan(relation, Seq(k, v), Seq(k, v), None, packing, new Counting(serverJar = true))
        .tasks shouldBe None
      val perRegion = planSized(30 * mb, None, packing.copy(taskMaxBytes = 0))
      perRegion.tasks shouldBe None
      perRegion.partitions.map(_.size) shouldBe Seq(1, 1, 1)
      perRegion.describe should not include "tasks"
    }

    it("count only the regions the key ranges leave") {
      val p = planSized(30 * mb, Some(k >= 1500), packing.copy(minTasks = 1))
      p.regions.size shouldBe 2
      p.tasks shouldBe Some(RegionTasks(Seq(2), BigInt(20 * mb)))
    }
  }

  describe("a read on the driver") {
    def named(p: TableScanPlan, keys: Int*) = IndexLookup.narrow(p, Some(IndexAnswer(keys.map(key), Nil)))
    def gets(r: RegionScan) = r.ranges.map(range => (range.start.toSeq, range.isSingleRow))

    it("reads the rows an index named all over the table with one batch of Gets, checked against the whole clause") {
      val p = named(plan(Some(v === 5), new Counting(serverJar = true)), 2500, 5, 1500)
      p.regions.map(_.server.isDefined) shouldBe Seq(false, false, false)
      val Seq(one) = p.driverReadOrder
      gets(one) shouldBe Seq(5, 1500, 2500).map(k => (key(k).toSeq, true))
      one.server shouldBe None
      one.residual shouldBe Some(v === 5)
      one.region.rangeString shouldBe RegionInfo(Array.emptyByteArray, Array.emptyByteArray, None).rangeString
      withClue("regions on several servers name none: ")(one.region.host shouldBe None)
      withClue("a reversed read reverses the one region's Gets itself: ")(
        p.copy(request = p.request.copy(reversed = true)).driverReadOrder.map(gets) shouldBe Seq(gets(one))
      )
      withClue("a region left nothing to read is not read: ")(
        named(plan(Some(v === 5), new Counting(serverJar = true)), 5, 2500).driverReadOrder.map(gets) shouldBe
          Seq(Seq(5, 2500).map(k => (key(k).toSeq, true)))
      )
    }

    it("reads region by region where a region scans, more Gets than a call takes, or the regions check apart") {
      val scanning = plan(Some(v === 5), new Counting(serverJar = true))
      scanning.driverReadOrder shouldBe scanning.readOrder
      val byKeys = plan(Some(k.in(5, 1500, 2500)), new Counting(serverJar = true))
      byKeys.regions.forall(_.byGets) shouldBe true
      byKeys.driverReadOrder.size shouldBe byKeys.regions.size
      val manyGets =
        named(plan(Some(v === 5), new Counting(serverJar = true), settings.copy(fetchSize = 2)), 5, 1500, 2500)
      manyGets.driverReadOrder shouldBe manyGets.readOrder
      withClue("more than a few Gets go region by region, to several of a region server's handlers at once: ") {
        val named101 = named(plan(Some(v === 5), new Counting(serverJar = true)), (0 until 3030 by 30): _*)
        named101.regions.map(_.ranges.size).sum shouldBe TableScanPlan.FewGets + 1
        named101.driverReadOrder shouldBe named101.readOrder
        val named100 = named(plan(Some(v === 5), new Counting(serverJar = true)), (0 until 3000 by 30): _*)
        named100.driverReadOrder.size shouldBe 1
      }
      // Below 1000, k < 1000 decides the OR: that region checks nothing, the others check it all.
      val apart = named(plan(Some(k < 1000 || v === 5), new Counting(serverJar = true)), 5, 1500, 2500)
      apart.regions.map(_.residual.isDefined) shouldBe Seq(false, true, true)
      apart.driverReadOrder shouldBe apart.readOrder
      val oneRegion = named(plan(Some(v === 5), new Counting(serverJar = true)), 1500)
      withClue("one region reads as it was planned, and the regions left nothing are not read: ")(
        oneRegion.driverReadOrder shouldBe oneRegion.readOrder.filter(_.ranges.nonEmpty)
      )
      oneRegion.driverReadOrder.size shouldBe 1
    }
  }
}
