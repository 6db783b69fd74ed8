// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Result, TableDescriptorBuilder}

import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.execution.SimpleMode
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseCalls, ScanMetrics}
import org.apache.spark.sql.hbase.server.{AggregateBatch, AggregateSpec, RowAggregator, ServerJar}
import org.apache.spark.sql.hbase.planner.RegionRequests
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** Partial aggregation in the region servers, against the real HBase. */
class AggregatePushdownSpec extends HBaseSuite with AdaptiveSparkPlanHelper {

  private def aggregateScan(df: DataFrame): Option[HBaseAggregateScan] =
    collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseAggregateScan => s }.headOption

  private def offloaded(query: String): Seq[Row] =
    withConf(HBaseSQLConf.Coprocessor.key -> "false")(sql(query).collect().toSeq.sortBy(_.toString))

  /** Key k INT in [0, 3000), 3 regions split at 1000 and 2000; g = k % 5 as text, v = k % 100, NULL where k % 7 = 0. */
  private lazy val table = {
    val t = uniqueName("agg")
    sql(
      s"CREATE TABLE $t (k INT, g STRING, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[g=f.g, v=f.v]) SPLIT ON ((1000), (2000))"
    )
    sql(
      s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 5 AS STRING), IF(id % 7 = 0, NULL, CAST(id % 100 AS INT)) FROM range(0, 3000)"
    )
    t
  }

  describe("a GROUP BY over an HBase table") {
    it(
      "is computed per region in the region servers, says so in EXPLAIN, and sends Spark at most groups × regions rows"
    ) {
      val query = s"SELECT g, count(*), count(v), sum(v), min(v), max(v), avg(v) FROM $table WHERE k >= 500 GROUP BY g"
      val df = sql(query)
      val rows = df.collect().toSeq.sortBy(_.toString)
      rows shouldBe offloaded(query)
      rows.map(_.getLong(1)).sum shouldBe 2500
      val explained = df.queryExecution.explainString(org.apache.spark.sql.execution.SimpleMode)
      explained should include("regions 3 of 3, 1 key ranges ([500, +inf))")
      explained should include(
        "partial aggregate in region servers: count(1), count(v), sum(v), min(v), max(v), sum(CAST(v AS DOUBLE)) group by g"
      )
      val metrics = ScanMetrics.of(df)
      metrics("rowsRead") should be <= 5L * 3
      metrics("rowsScanned") shouldBe 2500
    }

    it("checks the whole WHERE clause in the region servers, or leaves the aggregate to Spark when it cannot") {
      val inServers = sql(s"SELECT count(*), sum(v) FROM $table WHERE v > 50 AND g IN ('1', '3')")
      inServers.collect().toSeq shouldBe
        offloaded(s"SELECT count(*), sum(v) FROM $table WHERE v > 50 AND g IN ('1', '3')")
      aggregateScan(inServers) should not be empty
      val inSpark = sql(s"SELECT count(*) FROM $table WHERE k + v > 100")
      inSpark.collect().toSeq shouldBe offloaded(s"SELECT count(*) FROM $table WHERE k + v > 100")
      aggregateScan(inSpark) shouldBe empty
    }

    it(
      "sends its groups early when a region holds more than spark.sql.hbase.coprocessor.maxGroups, and Spark merges them"
    ) {
      val query = s"SELECT v, count(*), sum(k) FROM $table GROUP BY v"
      withConf(HBaseSQLConf.CoprocessorMaxGroups.key -> "10") {
        val df = sql(query)
        df.collect().toSeq.sortBy(_.toString) shouldBe offloaded(query)
        val metrics = ScanMetrics.of(df)
        withClue("101 groups (NULL included) sent in batches of at most 10 per region: ")(metrics("rowsRead") should
          be > 101L * 3)
        metrics("rowsScanned") shouldBe 3000
      }
    }
  }

  describe("an aggregate without GROUP BY") {
    it("reads its regions together in one Spark task, with no shuffle before Spark's final aggregation") {
      val query = s"SELECT count(*), sum(v), min(v), avg(v) FROM $table WHERE k >= 500"
      def shuffles(df: DataFrame) = collectWithSubqueries(df.queryExecution.executedPlan) {
        case e: ShuffleExchangeExec => e
      }.size
      val df = sql(query)
      df.collect().toSeq shouldBe offloaded(query)
      df.queryExecution.explainString(SimpleMode) should include("regions read together in one task")
      shuffles(df) shouldBe 0
      aggregateScan(df).get.execute().getNumPartitions shouldBe 1
      withClue("every region's rows are counted: ")(ScanMetrics.of(df)("rowsScanned") shouldBe 2500)

      withConf(HBaseSQLConf.CoprocessorSingleTaskMaxRegions.key -> "2", HBaseSQLConf.ScanTaskMaxBytes.key -> "0") {
        val perRegion = sql(query)
        perRegion.collect().toSeq shouldBe df.collect().toSeq
        shuffles(perRegion) shouldBe 1
        aggregateScan(perRegion).get.execute().getNumPartitions shouldBe 3
      }
    }
  }

  describe("a DECIMAL sum") {
    it("overflows as Spark's does: NULL, or the same error under ANSI") {
      val t = uniqueName("bigdec")
      sql(s"CREATE TABLE $t (k INT, x DECIMAL(38, 0), PRIMARY KEY (k)) MAPPED BY ($t, COLS=[x=f.x]) SPLIT ON ((2))")
      sql(
        s"INSERT INTO $t VALUES (1, 90000000000000000000000000000000000000), (2, 90000000000000000000000000000000000000), (3, 5)"
      )
      withConf("spark.sql.ansi.enabled" -> "false") {
        val df = sql(s"SELECT sum(x), avg(x), sum(x) FILTER (WHERE k = 3) FROM $t WHERE k < 3")
        df.collect().toSeq shouldBe Seq(Row(null, null, null))
        sql(s"SELECT sum(x), avg(x) FROM $t").collect().toSeq shouldBe Seq(Row(null, null))
        aggregateScan(sql(s"SELECT sum(x), avg(x) FROM $t")) should not be empty
      }
      withConf("spark.sql.ansi.enabled" -> "true") {
        val query = s"SELECT sum(x) FROM $t"
        def errorOf(q: String) =
          intercept[org.apache.spark.SparkArithmeticException](sql(q).collect()).getMessage.takeWhile(_ != ']')
        aggregateScan(sql(query)) should not be empty
        errorOf(query) shouldBe withConf(HBaseSQLConf.Coprocessor.key -> "false")(errorOf(query))
        sql(s"SELECT sum(x) FROM $t WHERE k = 3").collect().toSeq shouldBe Seq(Row(new java.math.BigDecimal(5)))
      }
    }

    it(
      "of arithmetic is Spark's: a product out of range is NULL, or Spark's error under ANSI, found in the region server"
    ) {
      val t = uniqueName("bigproduct")
      sql(s"CREATE TABLE $t (k INT, x DECIMAL(38, 0), PRIMARY KEY (k)) MAPPED BY ($t, COLS=[x=f.x]) SPLIT ON ((2))")
      sql(s"INSERT INTO $t VALUES (1, 90000000000000000000000000000000000000), (2, 3), (3, 5)")
      val query = s"SELECT sum(x * x), count(x * x), avg(x - 1) FROM $t"
      withConf("spark.sql.ansi.enabled" -> "false") {
        val df = sql(query)
        val rows = df.collect().toSeq
        rows.map(r => (r.get(0), r.get(1))) shouldBe Seq((new java.math.BigDecimal(34), 2L))
        rows shouldBe withConf(HBaseSQLConf.Coprocessor.key -> "false")(sql(query).collect().toSeq)
        aggregateScan(df) should not be empty
      }
      withConf("spark.sql.ansi.enabled" -> "true") {
        val product = s"SELECT sum(x * x) FROM $t"
        def errorOf(q: String) =
          intercept[org.apache.spark.SparkArithmeticException](sql(q).collect()).getMessage.takeWhile(_ != ']')
        aggregateScan(sql(product)) should not be empty
        errorOf(product) shouldBe withConf(HBaseSQLConf.Coprocessor.key -> "false")(errorOf(product))
        errorOf(product) should include("NUMERIC_VALUE_OUT_OF_RANGE")
        sql(s"SELECT sum(x * x) FROM $t WHERE k > 1").collect().toSeq shouldBe Seq(Row(new java.math.BigDecimal(34)))
      }
    }
  }

  describe("a long aggregation") {
    it("returns its result although a region takes longer than the client's scanner timeout") {
      val t = uniqueName("slowagg")
      val rows = 2000000
      sql(s"CREATE TABLE $t (k INT, g INT, w STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[g=f.g, w=f.w])")
      val dir = Files.createTempDirectory("slow-aggregation")
      val file = dir.resolve("rows.csv")
      Files.write(
        file,
        (0 until rows).map(i => s"$i,${i % 1000},text$i").mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8)
      )
      sql(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t")
      val query = s"SELECT g, count(*), max(w) FROM $t WHERE w LIKE '%9%' GROUP BY g"
      val started = System.nanoTime()
      val expected = sql(query).collect().toSeq.sortBy(_.toString)
      val tookMs = (System.nanoTime() - started) / 1000000
      // HBase answers a scan call with a heartbeat after half the client's timeout, and the region
      // server reads in slices of a quarter of it: 2 s leaves a busy region server (other suites'
      // work, two cores) 500 ms to spare on each call; with 1.5 s one call came 45 ms late in a
      // fresh-clone run. The region takes at least twice as long (4 s alone, 10 to 18 s in a run
      // of every suite).
      val timeoutMs = 2000
      info(s"the one region's aggregation took $tookMs ms")
      withClue(s"the one region's aggregation took $tookMs ms: ")(tookMs should be > timeoutMs.toLong)
      withConf("spark.hbase.client.scanner.timeout.period" -> timeoutMs.toString) {
        val df = sql(query)
        df.collect().toSeq.sortBy(_.toString) shouldBe expected
        aggregateScan(df) should not be empty
      }
      expected.map(_.getLong(1)).sum shouldBe (0 until rows).count(_.toString.contains('9'))
    }
  }

  describe("region servers without the coprocessor") {
    it(
      "send rows, which Spark folds in with the same aggregator: a table that lost its coprocessor gives the same answer"
    ) {
      val t = uniqueName("nocoproc")
      sql(
        s"CREATE TABLE $t (k INT, g STRING, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[g=f.g, v=f.v]) SPLIT ON ((50))"
      )
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 3 AS STRING), CAST(id AS INT) FROM range(0, 100)")
      val query = s"SELECT g, count(*), sum(v), max(v) FROM $t GROUP BY g"
      val expected = offloaded(query)
      sql(query).collect().toSeq.sortBy(_.toString) shouldBe expected // the coprocessor answers; its probe is cached
      val name = TableName.valueOf(t)
      withAdmin { admin =>
        admin.modifyTable(TableDescriptorBuilder.newBuilder(
          admin.getDescriptor(name)
        ).removeCoprocessor(ServerJar.AGGREGATE_OBSERVER).build())
      }
      val df = sql(query)
      df.collect().toSeq.sortBy(_.toString) shouldBe expected
      aggregateScan(df) should not be empty
      withClue("each region returned its 50 rows unaggregated: ")(ScanMetrics.of(df)("rowsRead") shouldBe 100)
    }

    it(
      "are what CREATE TABLE makes with spark.sql.hbase.coprocessor=false, since a region server that cannot load a table's coprocessor aborts"
    ) {
      def coprocessorOf(t: String) =
        withAdmin(_.getDescriptor(TableName.valueOf(t)).hasCoprocessor(ServerJar.AGGREGATE_OBSERVER))
      val plain = uniqueName("plain")
      withConf(HBaseSQLConf.Coprocessor.key -> "false") {
        sql(s"CREATE TABLE $plain (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($plain, COLS=[v=f.v])")
      }
      coprocessorOf(plain) shouldBe false
      coprocessorOf(table) shouldBe true
    }

    it(
      "of another wire version leave a scan's rows alone, and those rows fold into the groups the coprocessor computes"
    ) {
      val df = sql(s"SELECT g, count(*), sum(v), min(v) FROM $table WHERE k < 1000 GROUP BY g")
      df.collect()
      val plan = aggregateScan(df).get.plan
      val region = plan.scan.regions.head
      val spec = RegionRequests.aggregateSpec(plan, region)
      def scan(attribute: Array[Byte]): Seq[Result] = withTable(table) { htable =>
        val s = HBaseCalls.scanFor(
          plan.scan.request,
          region.ranges,
          Seq(RegionRequests.aggregateFilter(plan, region))
        )
        s.setAttribute(AggregateSpec.ATTRIBUTE, attribute)
        val scanner = htable.getScanner(s)
        try scanner.iterator().asScala.toSeq
        finally scanner.close()
      }
      def show(value: Any): String = value match {
        case bytes: Array[Byte] => bytes.toSeq.toString
        case other => String.valueOf(other)
      }
      def groups(batch: AggregateBatch) = batch.keys.asScala.map(_.toSeq.map(show)).zip(
        batch.states.asScala.map(_.toSeq.map(_.toSeq.map(show)))
      ).toMap

      val fromServer = scan(spec.toByteArray)
      fromServer.forall(AggregateBatch.isBatch) shouldBe true
      val newer = spec.toByteArray.clone()
      newer(3) = (ServerJar.WIRE_VERSION + 1).toByte
      val rows = scan(newer)
      rows.exists(AggregateBatch.isBatch) shouldBe false
      rows.size shouldBe 1000
      val local = new RowAggregator(spec)
      rows.foreach(_.rawCells().foreach(local.add))
      local.endOfRows()
      groups(AggregateBatch.read(spec, local.takeBatch())) shouldBe groups(AggregateBatch.read(spec, fromServer.head))
    }
  }

  it("is left to Spark with spark.sql.hbase.coprocessor=false") {
    val query = s"SELECT g, sum(v) FROM $table GROUP BY g"
    withConf(HBaseSQLConf.Coprocessor.key -> "false") {
      aggregateScan(sql(query)) shouldBe empty
    }
    aggregateScan(sql(query)) should not be empty
  }
}
