// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Put, Result, TableDescriptorBuilder}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{DifferentialCases, HBaseSuite}
import org.apache.spark.sql.{DataFrame, Row, SparkSession}
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.execution.{HBaseCalls, HBaseTableScan, ScanMetrics}
import org.apache.spark.sql.hbase.server.{ServerJar, TopNSpec}
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/**
 * ORDER BY columns other than the leading key with LIMIT n: each region server returns at most
 * n rows of each region, the smallest in that order, and Spark's top-n merges them.
 */
class TopNPerRegionSpec extends HBaseSuite with DifferentialCases with AdaptiveSparkPlanHelper {

  private val Regions = 4
  private val Rows = 1200

  /**
   * Key (a INT, b STRING), a in [0, 600), b 'x' or 'y', in 4 regions. Values with NULLs and many
   * ties: v of 7 values, w of 3, d of 13 (with NaN, -0.0 and 0.0), e DECIMAL. The same rows in
   * LAYOUT PACKED, where the region servers read the values from slots of one cell.
   */
  private lazy val (table, packedTable) = {
    val t = uniqueName("topn")
    for ((name, layout) <- Seq(t -> "CELLS", s"${t}_packed" -> "PACKED")) {
      sql(
        s"CREATE TABLE $name (a INT, b STRING, v INT, w STRING, d DOUBLE, e DECIMAL(10, 2), PRIMARY KEY (a, b)) " +
          s"MAPPED BY ($name, COLS=[v=f.v, w=f.w, d=g.d, e=g.e]) LAYOUT $layout SPLIT ON ((150), (300), (450))"
      )
      sql(
        s"INSERT INTO $name SELECT CAST(id DIV 2 AS INT), IF(id % 2 = 0, 'x', 'y'), " +
          "IF(id % 11 = 0, NULL, CAST(id % 7 AS INT)), IF(id % 5 = 0, NULL, CAST(id % 3 AS STRING)), " +
          "CASE id % 13 WHEN 0 THEN NULL WHEN 1 THEN CAST('NaN' AS DOUBLE) WHEN 2 THEN -CAST(0 AS DOUBLE) " +
          "WHEN 3 THEN CAST(0 AS DOUBLE) ELSE (id % 17) / 4.0 - 2 END, " +
          s"IF(id % 9 = 0, NULL, CAST((id % 19) * 1.25 - 10 AS DECIMAL(10, 2))) FROM range(0, $Rows)"
      )
    }
    (t, s"${t}_packed")
  }

  private def scansOf(df: DataFrame): Seq[HBaseTableScan] =
    collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s }

  private def topNOf(df: DataFrame) = scansOf(df).flatMap(_.plan.request.topN)

  private def off[T](session: SparkSession)(body: => T): T =
    withConf(session)(HBaseSQLConf.TopNPerRegionMaxRows.key -> "0")(body)

  /** A row's values as compared: -0.0 is 0.0 (they tie in any order), NaN is NaN. */
  private def comparable(row: Row): Seq[Any] = row.toSeq.map {
    case d: Double if d == 0.0 => 0.0
    case d: Double if d.isNaN => "NaN"
    case other => other
  }

  describe("ORDER BY columns other than the leading key with LIMIT n") {
    it("has each region server return at most n rows of each region, and gives Spark's answer") {
      val query = s"SELECT * FROM $table ORDER BY v DESC, w, a LIMIT 7"
      val truth = off(spark)(sql(query).collect().toSeq)
      val df = sql(query)
      df.collect().toSeq shouldBe truth
      topNOf(df).map(_.rows) shouldBe Seq(7)
      collect(df.queryExecution.executedPlan) { case t: TakeOrderedAndProjectExec => t } should have size 1
      val metrics = ScanMetrics.of(df)
      metrics("regionsScanned") shouldBe Regions
      metrics("rowsRead") should be <= 7L * Regions
      metrics("rowsRead") should be >= 7L
      withClue("the region servers read every row: ")(metrics("rowsScanned") shouldBe Rows)
      val without = off(spark) { val plain = sql(query); plain.collect(); plain }
      ScanMetrics.of(without)("rowsRead") shouldBe Rows
    }

    it("says so in EXPLAIN") {
      val explained = sql(s"EXPLAIN SELECT a, w FROM $table WHERE v = 3 ORDER BY w DESC NULLS LAST LIMIT 5")
        .collect().head.getString(0)
      explained should include("at most 5 rows per region, by w DESC NULLS LAST")
    }

    it("ranks by a column renamed in the projection, with a key range and predicates the region servers check") {
      val query = s"SELECT a, b, d AS x, e FROM $table WHERE a BETWEEN 100 AND 400 AND w IS NOT NULL " +
        "ORDER BY x NULLS FIRST, e DESC, a, b LIMIT 11"
      val truth = off(spark)(sql(query).collect().toSeq)
      val df = sql(query)
      df.collect().toSeq.map(comparable) shouldBe truth.map(comparable)
      topNOf(df).map(_.rows) shouldBe Seq(11)
      ScanMetrics.of(df)("rowsRead") should be <= 11L * 3
    }

    it("returns rows tied at the limit from any region, and Spark's top-n still finds n of the smallest") {
      // v = 0 holds about 150 rows spread over every region: a limit of 40 cuts inside them.
      val query = s"SELECT v, a, b FROM $table WHERE v IS NOT NULL ORDER BY v LIMIT 40"
      val df = sql(query)
      val rows = df.collect().toSeq
      rows.map(_.getInt(0)) shouldBe Seq.fill(40)(0)
      val zeros = sql(s"SELECT v, a, b FROM $table WHERE v = 0").collect().toSet
      rows.toSet.subsetOf(zeros) shouldBe true
      rows.distinct should have size 40
      ScanMetrics.of(df)("rowsRead") should be <= 40L * Regions
    }

    it("stays Spark's alone where Spark must still filter rows, or n is above the setting, or the order is the key's") {
      val cases = Seq(
        s"SELECT * FROM $table WHERE v + 1 > 3 ORDER BY w, a, b LIMIT 5" -> Nil,
        s"SELECT * FROM $table WHERE a > (SELECT max(id) FROM range(100)) ORDER BY w, a, b LIMIT 5" -> Nil,
        s"SELECT * FROM $table ORDER BY a DESC, v LIMIT 5" -> Nil,
        s"SELECT * FROM $table ORDER BY v + 1, a, b LIMIT 5" -> Nil
      )
      for ((query, settings) <- cases) {
        val df = withConf(settings: _*)(sql(query))
        withClue(query) {
          df.collect().toSeq.map(comparable) shouldBe off(spark)(sql(query).collect().toSeq.map(comparable))
          topNOf(df) shouldBe empty
        }
      }
      withConf(HBaseSQLConf.TopNPerRegionMaxRows.key -> "6") {
        topNOf(sql(s"SELECT * FROM $table ORDER BY w LIMIT 7")) shouldBe empty
        topNOf(sql(s"SELECT * FROM $table ORDER BY w LIMIT 6")).map(_.rows) shouldBe Seq(6)
      }
      withConf(HBaseSQLConf.BadRowKeys.key -> "skip") {
        topNOf(sql(s"SELECT * FROM $table ORDER BY w LIMIT 6")) shouldBe empty
      }
    }

    it("reads every row as before without the server jar's filter") {
      val query = s"SELECT * FROM $table WHERE a < 500 ORDER BY e, a, b LIMIT 9"
      withConf(HBaseSQLConf.CustomFilter.key -> "false") {
        val df = sql(query)
        df.collect().toSeq shouldBe off(spark)(sql(query).collect().toSeq)
        topNOf(df) shouldBe empty
      }
    }
  }

  describe("region servers") {
    it("without the coprocessor return every row, and the answer stays Spark's") {
      val t = uniqueName("topn_nocoproc")
      sql(
        s"CREATE TABLE $t (k INT, g STRING, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[g=f.g, v=f.v]) SPLIT ON ((50))"
      )
      sql(
        s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 3 AS STRING), CAST(id * 7 % 100 AS INT) FROM range(0, 100)"
      )
      val query = s"SELECT * FROM $t ORDER BY v DESC, g LIMIT 3"
      val truth = off(spark)(sql(query).collect().toSeq)
      val before = sql(query)
      before.collect().toSeq shouldBe truth // the coprocessor answers; its probe is cached
      ScanMetrics.of(before)("rowsRead") shouldBe 6
      withAdmin { admin =>
        val name = TableName.valueOf(t)
        admin.modifyTable(
          TableDescriptorBuilder.newBuilder(admin.getDescriptor(name)).removeCoprocessor(ServerJar.AGGREGATE_OBSERVER)
            .build()
        )
      }
      val df = sql(query)
      df.collect().toSeq shouldBe truth
      topNOf(df).map(_.rows) shouldBe Seq(3)
      withClue("each region returned its 50 rows: ")(ScanMetrics.of(df)("rowsRead") shouldBe 100)
    }

    it("send a row whose key is not the table's with what they kept, so that the query fails on it as before") {
      val t = uniqueName("topn_badkey")
      sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((50))")
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id AS INT) FROM range(0, 100)")
      // Two bytes where the key is an INT of four, written by another tool; its v would never be among the first.
      withTable(t)(_.put(new Put(Bytes.toBytes("zz")).addColumn(
        Bytes.toBytes("f"),
        Bytes.toBytes("v"),
        Bytes.toBytes(1000)
      )))
      val query = s"SELECT * FROM $t ORDER BY v LIMIT 2"
      topNOf(sql(query)).map(_.rows) shouldBe Seq(2)
      val e = intercept[Exception](sql(query).collect())
      HBaseSQLException.causeOf(e).map(_.getMessage).getOrElse(e.toString) should include("is not a row of the table")
    }

    it("keep a top-n of a wire version they read, and leave a scan of a newer one alone") {
      val df = sql(s"SELECT * FROM $table WHERE a < 150 ORDER BY w DESC, d LIMIT 4")
      df.collect()
      val scan = scansOf(df).head.plan
      val region = scan.regions.head
      def rows(topN: Option[Array[Byte]]): Seq[Result] = withTable(table) { htable =>
        val s = HBaseCalls.scanFor(scan.request, region.ranges, Seq(region.server.get.filter))
        topN.foreach(s.setAttribute(TopNSpec.ATTRIBUTE, _))
        val scanner = htable.getScanner(s)
        try scanner.iterator().asScala.toSeq
        finally scanner.close()
      }
      val spec = scan.request.topN.get.spec.bytes
      val kept = rows(Some(spec))
      kept should have size 4
      withClue("in row key order: ")(kept.map(_.getRow).sliding(2).forall {
        case Seq(x, y) => Bytes.compareTo(x, y) < 0
        case _ => true
      } shouldBe true)
      val newer = spec.clone()
      Bytes.putInt(newer, 0, ServerJar.WIRE_VERSION + 1)
      rows(Some(newer)) should have size 300
      rows(None) should have size 300
    }
  }

  private val suiteCases = 60

  describe(s"${randomCases(suiteCases)} random ORDER BY ... LIMIT queries") {
    it("return what Spark's own top-n returns over every row") {
      val cases = randomCases(suiteCases)
      val pushed = new java.util.concurrent.atomic.AtomicInteger()
      val failures = failedCases(cases, seed = 3636) { (i, random, session) =>
        def pick[T](options: T*): T = options(random.nextInt(options.size))
        def a = random.nextInt(600)
        val t = if (i % 3 == 0) packedTable else table
        val where = pick(
          "",
          s"WHERE a BETWEEN $a AND $a",
          s"WHERE v ${pick("=", "<", ">", "<>")} ${random.nextInt(7)}",
          s"WHERE w IS NULL OR a > $a",
          s"WHERE b = 'y' AND d < ${random.nextInt(5) - 2}",
          s"WHERE a >= $a AND e IS NOT NULL",
          s"WHERE v + 1 > ${random.nextInt(7)}" // Spark filters: the top-n stays Spark's
        )
        val columns = random.shuffle(Seq("v", "w", "d", "e", "b")).take(1 + random.nextInt(3))
        val order = columns.map { c =>
          s"$c${pick("", " ASC", " DESC")}${pick("", " NULLS FIRST", " NULLS LAST")}"
        } ++ (if (random.nextInt(4) == 0) Seq(s"a${pick("", " DESC")}") else Nil)
        val n = 1 + random.nextInt(pick(5, 40, 400))
        val query = s"SELECT * FROM $t $where ORDER BY ${order.mkString(", ")} LIMIT $n"
        val positions = (columns :+ "a").map(Seq("a", "b", "v", "w", "d", "e").indexOf)
        def sortValues(rows: Seq[Row]) = rows.map(r => positions.take(order.size).map(p => comparable(r)(p)))
        val truth = off(session)(session.sql(query).collect().toSeq)
        val matching = session.sql(s"SELECT * FROM $t $where").collect().map(comparable).toSet
        val df = session.sql(query)
        withClue(s"#$i $query\n${df.queryExecution.executedPlan}\n") {
          val rows = df.collect().toSeq
          // Rows tied at the limit may be any of them: the order's values must agree, and every row be one that matches.
          sortValues(rows) shouldBe sortValues(truth)
          rows.map(comparable).toSet.subsetOf(matching) shouldBe true
          rows.map(comparable).distinct should have size rows.size.toLong
          val topN = collect(df.queryExecution.executedPlan) { case s: HBaseTableScan => s.plan.request.topN }
            .flatten
          if (topN.nonEmpty) {
            pushed.incrementAndGet()
            val metrics = ScanMetrics.of(df)
            metrics("rowsRead") should be <= n.toLong * metrics("regionsScanned")
          }
        }
      }
      noFailedCases("top-n per region", cases, failures)
      withClue("cases the region servers kept the top-n of: ")(
        pushed.get.toDouble should be >= floorOf(cases, 0.5, suiteCases)
      )
    }
  }
}
