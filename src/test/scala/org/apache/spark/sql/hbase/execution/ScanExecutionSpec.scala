// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{Put, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, facts, metadata}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, RowRange}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.{HBaseCalls, HBaseTableScan, HBaseScanRDD, ScanMetrics}
import org.apache.spark.sql.hbase.planner.{RegionRequests, RegionScan, ScanLimits, ScanRequest, ServerFilter}
import org.apache.spark.sql.catalyst.expressions.And
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** What a scan reads from HBase, and what it reports, against the real HBase. */
class ScanExecutionSpec extends HBaseSuite {
  private def scanOf(df: DataFrame): HBaseTableScan =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s }.get

  /** Key k INT in [0, 3000), split into 3 regions at 1000 and 2000; v = k % 10, w = k * 2. */
  private lazy val table = {
    val t = uniqueName("scan")
    sql(
      s"CREATE TABLE $t (k INT, v INT, w INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v, w=f.w]) SPLIT ON ((1000), (2000))"
    )
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 10 AS INT), CAST(id * 2 AS INT) FROM range(0, 3000)")
    t
  }

  /** The conjuncts a region's rows are still checked against, by its region server or by Spark. */
  private def leftToCheck(region: RegionScan): Option[String] =
    (region.server.toSeq.flatMap(_.pushed) ++ region.residual).reduceOption(And).map(_.sql)

  describe("the residual predicate") {
    it("is left out where the key ranges already guarantee it, so HBase returns only matching rows") {
      val df = sql(s"SELECT * FROM $table WHERE k >= 500 AND k < 1500")
      df.count() shouldBe 1000
      df.collect().length shouldBe 1000
      val scan = scanOf(df)
      scan.plan.regions.map(leftToCheck) shouldBe Seq(None, None)
      scan.metrics("rowsRead").value shouldBe 1000
      scan.simpleString(10) should include("regions 2 of 3")
      scan.simpleString(10) should include("residual none")
    }

    it("keeps only the conjuncts the key cannot decide, which region servers check with the server jar") {
      val query = s"SELECT k FROM $table WHERE k BETWEEN 990 AND 1009 AND v = 3"
      val inRegionServers = scanOf(sql(query))
      inRegionServers.plan.regions.map(leftToCheck) shouldBe Seq.fill(2)(Some("((v IS NOT NULL) AND (v = 3))"))
      inRegionServers.plan.regions.flatMap(_.residual) shouldBe empty
      inRegionServers.executeCollect().map(_.getInt(0)).toSeq shouldBe Seq(993, 1003)
      inRegionServers.metrics("rowsRead").value shouldBe 2

      withConf(HBaseSQLConf.CustomFilter.key -> "false") {
        val inSpark = scanOf(sql(query))
        inSpark.plan.regions.map(_.residual.map(_.sql)) shouldBe Seq.fill(2)(Some("((v IS NOT NULL) AND (v = 3))"))
        inSpark.plan.regions.flatMap(_.server) shouldBe empty
        inSpark.executeCollect().map(_.getInt(0)).toSeq shouldBe Seq(993, 1003)
        inSpark.metrics("rowsRead").value shouldBe 20
      }
    }

    it("differs between regions when one region's keys decide it and another's do not") {
      val df = sql(s"SELECT k FROM $table WHERE k IN (5, 2500) AND (k < 1000 OR w = 0)")
      df.collect().toSeq shouldBe Seq(Row(5))
      scanOf(df).plan.regions.map(leftToCheck) shouldBe Seq(None, Some("((k < 1000) OR (w = 0))"))
      scanOf(df).simpleString(10) should include("residual per region: none; ((k < 1000) OR (w = 0))")
    }
  }

  describe("the order rows come in") {

    /** Key (a, b): a in 0..9 and b in 'p'..'s', v = 10 * (b - 'p') + a; a region boundary splits a = 5's rows. */
    lazy val keyed = {
      val t = uniqueName("order")
      sql(
        s"CREATE TABLE $t (a INT, b STRING, v INT, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((5, 'r'), (8))"
      )
      sql(
        s"INSERT INTO $t SELECT CAST(id % 10 AS INT), char(112 + CAST(id DIV 10 AS INT)), CAST(id AS INT) FROM range(0, 40)"
      )
      t
    }
    def sortsAndShuffles(df: DataFrame) = df.queryExecution.executedPlan.collect {
      case s: org.apache.spark.sql.execution.SortExec => s
      case e: org.apache.spark.sql.execution.exchange.ShuffleExchangeExec => e
    }
    val sorted = for { a <- 0 until 10; b <- "pqrs" } yield Row(a, b.toString, 10 * (b - 'p') + a)

    it("is the key's, so ORDER BY the key neither sorts nor shuffles, over several regions") {
      withConf("spark.sql.adaptive.enabled" -> "false") {
        val whole = sql(s"SELECT a, b, v FROM $keyed ORDER BY a, b")
        scanOf(whole).plan.regions.size shouldBe 3
        sortsAndShuffles(whole) shouldBe empty
        whole.collect().toSeq shouldBe sorted
        val leading = sql(s"SELECT a, b FROM $keyed ORDER BY a")
        sortsAndShuffles(leading) shouldBe empty
        leading.collect().toSeq shouldBe sorted.map(r => Row(r.get(0), r.get(1)))
      }
    }

    it("makes key ranges of the partitions when the output holds the whole key, so GROUP BY the key does not shuffle") {
      withConf("spark.sql.adaptive.enabled" -> "false", HBaseSQLConf.Coprocessor.key -> "false") {
        val perKey = sql(s"SELECT a, b, count(*), sum(v) FROM $keyed GROUP BY a, b")
        sortsAndShuffles(perKey).collect { case e: org.apache.spark.sql.execution.exchange.ShuffleExchangeExec =>
          e
        } shouldBe empty
        perKey.collect().toSeq.sortBy(r => (r.getInt(0), r.getString(1))) shouldBe
          sorted.map(r => Row(r.get(0), r.get(1), 1L, r.getInt(2).toLong))
      }
    }

    it("holds only on the key's leading columns in the output, and a part of the key may straddle regions") {
      withConf("spark.sql.adaptive.enabled" -> "false", HBaseSQLConf.Coprocessor.key -> "false") {
        val byB = sql(s"SELECT b, v FROM $keyed ORDER BY b, v")
        sortsAndShuffles(byB) should not be empty
        byB.collect().toSeq shouldBe sorted.sortBy(r => (r.getString(1), r.getInt(2))).map(r => Row(r.get(1), r.get(2)))
        val counts = sql(s"SELECT a, count(*) FROM $keyed GROUP BY a")
        sortsAndShuffles(counts) should not be empty
        counts.collect().toSeq.sortBy(_.getInt(0)) shouldBe (0 until 10).map(a => Row(a, 4L))
      }
    }
  }

  describe("what Spark's optimizer is told") {
    it("is the table's size, from its regions, so that a join broadcasts a small HBase table") {
      val megabyte = BigInt(1024 * 1024)
      val size = sql(s"SELECT * FROM $table").queryExecution.optimizedPlan.stats.sizeInBytes
      withClue("3 regions, each counted 2 MB above what it reports: ")(size should
        (be >= 6 * megabyte and be < 10 * megabyte))
      withConf("spark.sql.adaptive.enabled" -> "false") {
        val large = spark.range(0, 2000000).selectExpr("CAST(id AS INT) AS id") // estimated at 16 MB
        val joined = large.join(
          sql(s"SELECT k, w FROM $table"),
          org.apache.spark.sql.functions.col("id") === org.apache.spark.sql.functions.col("k")
        )
        val broadcast = joined.queryExecution.executedPlan.collect {
          case b: org.apache.spark.sql.execution.exchange.BroadcastExchangeExec => b
        }
        broadcast.flatMap(_.collect { case s: HBaseTableScan => s }) should have size 1
        joined.count() shouldBe 3000
      }
    }

    it("is no size at all, soon, when HBase does not answer") {
      val nobody =
        HBaseClusterConf(Map("hbase.zookeeper.quorum" -> "127.0.0.1", "hbase.zookeeper.property.clientPort" -> "1"))
      val started = System.nanoTime()
      facts.HBaseTableSizes.cached(nobody, metadata.HBaseTableName("default", uniqueName("absent"))) shouldBe None
      (System.nanoTime() - started) / 1000000000L should be < 10L
    }
  }

  describe("small reads") {
    it("are collected on the driver without a Spark job: lookups by key, or one region") {
      val points = sql(s"SELECT k, w FROM $table WHERE k IN (3, 1500, 2999)")
      jobsRunBy(points.collect().toSeq shouldBe Seq(Row(3, 6), Row(1500, 3000), Row(2999, 5998))) shouldBe 0
      ScanMetrics.of(points) shouldBe
        Map(
          "regionsTotal" -> 3,
          "regionsScanned" -> 3,
          "keyRanges" -> 3,
          "chunksSkipped" -> 0,
          "badRowKeys" -> 0,
          "memoryFlushes" -> 0,
          "indexRowsRead" -> 0,
          "untrustedRegions" -> 0,
          "rowsInIndexOrder" -> 0,
          "indexRowsAggregated" -> 0,
          "rowsRead" -> 3,
          "rowsScanned" -> 3,
          "gets" -> 3
        )
      val oneRegion = sql(s"SELECT w FROM $table WHERE k >= 2990 AND v = 1")
      jobsRunBy(oneRegion.collect().toSeq shouldBe Seq(Row(5982))) shouldBe 0
      val threeRegions = sql(s"SELECT w FROM $table WHERE v = 1 AND k % 1000 = 1")
      jobsRunBy(threeRegions.collect().length shouldBe 3) should be > 0
      spark.conf.set(HBaseSQLConf.DriverReadMaxKeyRanges.key, "0")
      try jobsRunBy(sql(s"SELECT k FROM $table WHERE k IN (3, 1500)").collect().length shouldBe 2) should be > 0
      finally spark.conf.unset(HBaseSQLConf.DriverReadMaxKeyRanges.key)
    }
  }

  describe("LIMIT without a filter") {
    it("stops each region's scan after that many rows") {
      val df = sql(s"SELECT v FROM $table LIMIT 7")
      df.collect().length shouldBe 7
      val read = scanOf(df).metrics("rowsRead").value
      withClue(s"rows read for LIMIT 7 over 3 regions: $read")(read should (be >= 7L and be <= 21L))
      scanOf(df).simpleString(10) should include("limit 7")
      val filtered = sql(s"SELECT k FROM $table WHERE v = 9 LIMIT 3")
      filtered.collect().map(_.getInt(0)).foreach(k => k % 10 shouldBe 9)
    }

    it("reads regions in rounds as Spark's take does, the first region alone, then more where it found too few") {
      // A task per region; the rows with w >= 5000 are all in the last region.
      def firstThreeAndJobs(): (Seq[Int], Int) = {
        var rows = Seq.empty[Int]
        val query = sql(s"SELECT k FROM $table WHERE w >= 5000 LIMIT 3")
        val jobs = jobsRunBy { rows = query.collect().map(_.getInt(0)).toSeq }
        (rows, jobs)
      }
      withConf(HBaseSQLConf.ScanTaskMaxBytes.key -> "0") {
        firstThreeAndJobs() shouldBe ((Seq(2500, 2501, 2502), 2))
        withConf("spark.sql.limit.initialNumPartitions" -> "3")(firstThreeAndJobs() shouldBe
          ((Seq(2500, 2501, 2502), 1)))
      }
    }
  }

  describe("the columns read") {
    it("are only the needed ones, yet a row with no cell in them still exists") {
      val t = uniqueName("cells")
      createHBaseTable(t, Seq("f", "g"))
      sql(s"CREATE TABLE $t (k INT, v INT, w INT, d INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v, w=f.w, d=g.d])")
      val codec = new BinaryKeyCodec(Seq(IntegerType))
      withTable(t)(_.put(Seq(
        new Put(codec.encode(Seq(1))).addColumn(Bytes.toBytes("f"), Bytes.toBytes("v"), Bytes.toBytes(10))
          .addColumn(
            Bytes.toBytes("f"),
            Bytes.toBytes("w"),
            Bytes.toBytes(11)
          ).addColumn(Bytes.toBytes("g"), Bytes.toBytes("d"), Bytes.toBytes(12)),
        new Put(codec.encode(Seq(2))).addColumn(Bytes.toBytes("f"), Bytes.toBytes("other"), Bytes.toBytes("x")),
        new Put(codec.encode(Seq(3))).addColumn(Bytes.toBytes("g"), Bytes.toBytes("d"), Bytes.toBytes(32))
      ).asJava))
      sql(s"SELECT k, w FROM $t").collect().toSeq shouldBe Seq(Row(1, 11), Row(2, null), Row(3, null))
      sql(s"SELECT k, w FROM $t WHERE k = 3").collect().toSeq shouldBe Seq(Row(3, null))
      sql(s"SELECT count(*) FROM $t").head().getLong(0) shouldBe 3

      // What HBase sends back for row 1 (cells f:v, f:w, g:d) when only w is needed: its first
      // cell f:v, proof that the row exists, and w; not g:d. The server jar's filter also drops
      // the first cell's value.
      val definition = metadata.TableDefinitionStores.of(spark).get(t).get
      val onlyW = Seq(definition.columns(2))
      val everyRow = Seq(RowRange(Array.emptyByteArray, Array.emptyByteArray))
      val request = ScanRequest(
        definition,
        HBaseClusterConf.fromSession(spark),
        DataTypeUtils.toAttributes(definition.schema),
        definition.columns,
        Nil,
        ScanLimits(100, None)
      )
      val withHBaseFilters = HBaseCalls.scanFor(request, everyRow, HBaseCalls.cellFilter(definition, onlyW).toSeq)
      val withServerJar = HBaseCalls.scanFor(
        request,
        everyRow,
        Seq(RegionRequests.scanFilter(request, ServerFilter(None, Nil), onlyW))
      )
      withHBaseFilters.getCaching shouldBe 100
      withTable(t) { htable =>
        def firstRow(scan: Scan) = htable.getScanner(scan).next().rawCells()
          .map(c =>
            Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength) -> c.getValueLength
          ).toMap
        firstRow(withHBaseFilters) shouldBe Map("v" -> 4, "w" -> 4)
        firstRow(withServerJar) shouldBe Map("v" -> 0, "w" -> 4)
      }
    }
  }

  describe("scan metrics") {
    it(
      "are exactly regionsTotal, regionsScanned, keyRanges, chunksSkipped, rowsRead, rowsScanned, gets and badRowKeys, summed over a plan's scans with AQE on"
    ) {
      spark.conf.get("spark.sql.adaptive.enabled") shouldBe "true"
      val df = sql(s"SELECT v, count(*) FROM $table WHERE k IN (1, 2, 2999) OR k BETWEEN 1500 AND 1509 GROUP BY v")
      df.collect().map(_.getLong(1)).sum shouldBe 13
      // Gets are read by the region server's own Get path: the aggregation stays in Spark.
      ScanMetrics.of(df) shouldBe
        Map(
          "regionsTotal" -> 3,
          "regionsScanned" -> 3,
          "keyRanges" -> 4,
          "chunksSkipped" -> 0,
          "badRowKeys" -> 0,
          "memoryFlushes" -> 0,
          "indexRowsRead" -> 0,
          "untrustedRegions" -> 0,
          "rowsInIndexOrder" -> 0,
          "indexRowsAggregated" -> 0,
          "rowsRead" -> 13,
          "rowsScanned" -> 13,
          "gets" -> 3
        )
      val filtered = sql(s"SELECT k FROM $table WHERE k BETWEEN 1500 AND 1599 AND v = 3")
      filtered.collect().length shouldBe 10
      withClue("the region server looked at the 100 rows of the range and sent the 10 that match: ")(
        (ScanMetrics.of(filtered)("rowsScanned"), ScanMetrics.of(filtered)("rowsRead")) shouldBe ((100, 10))
      )
      // And the rows skipped for bad row keys, which the SQL tab shows (spark.sql.hbase.read.badRowKeys).
      scanOf(sql(s"SELECT * FROM $table")).metrics.keySet shouldBe ScanMetrics.Names.toSet
    }

    it("name each partition's region server as its preferred location") {
      val rdd = scanOf(sql(s"SELECT * FROM $table")).execute()
      val scanRdd = (rdd +: rdd.dependencies.map(_.rdd)).collectFirst { case r: HBaseScanRDD => r }.get
      scanRdd.partitions.map(p => scanRdd.preferredLocations(p)).foreach(_ should not be empty)
    }
  }
}
