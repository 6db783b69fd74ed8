// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.nio.charset.StandardCharsets.UTF_8

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.hbase.client.Put
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, ScanMetrics}
import org.apache.spark.sql.types.{IntegerType, StringType}
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/**
 * Rows another tool wrote, with keys that are not keys of the table, met by SQL over the real
 * HBase: `spark.sql.hbase.read.badRowKeys=fail` (the default) fails the query with an error that
 * names the table and the row; `skip` leaves them out and counts them, so the answer is Spark's
 * over the well-formed rows. Which rows are well formed is decided here by parsers of our own.
 */
class BadRowKeysSpec extends HBaseSuite with AdaptiveSparkPlanHelper {
  private val f = Bytes.toBytes("f")
  private val v = Bytes.toBytes("v")
  private val random = new Random(1919)

  private def skipping[T](body: => T): T = withConf(HBaseSQLConf.BadRowKeys.key -> "skip")(body)

  private def skipped(df: DataFrame): Long = ScanMetrics.of(df)("badRowKeys")

  private def rowsOf(df: DataFrame): Seq[String] = df.collect().toSeq.map(_.toString).sorted

  private def inRegionServers(df: DataFrame): Boolean =
    collectWithSubqueries(df.queryExecution.executedPlan) { case s: HBaseAggregateScan => s }.nonEmpty

  /** The query's rows in Spark's own aggregation over the plugin's rows, the coprocessor off. */
  private def inSpark(query: String): Seq[String] =
    withConf(HBaseSQLConf.Coprocessor.key -> "false") {
      val df = sql(query)
      inRegionServers(df) shouldBe false
      rowsOf(df)
    }

  private def failure(query: String): String = {
    val e = intercept[Exception](sql(query).collect())
    val ours = HBaseSQLException.causeOf(e)
    withClue(s"a clear error, not ${e.getClass.getName}: ${e.getMessage}: ")(ours shouldBe defined)
    ours.get.getMessage
  }

  /** Key (k INT, name STRING, j INT), binary: 4 bytes, escaped text ending 00 00, 4 bytes; 2 regions. */
  private lazy val binary: (String, Map[Array[Byte], Option[(Int, String, Int)]]) = {
    val t = uniqueName("badkeys")
    sql(
      s"CREATE TABLE $t (k INT, name STRING, j INT, v INT, PRIMARY KEY (k, name, j)) MAPPED BY ($t, COLS=[v=f.v]) LAYOUT CELLS SPLIT ON ((50))"
    )
    sql(
      s"INSERT INTO $t SELECT CAST(id AS INT), concat('n', id % 3), CAST(id * 2 AS INT), CAST(id AS INT) FROM range(0, 100)"
    )
    val codec = new BinaryKeyCodec(Seq(IntegerType, StringType, IntegerType))
    def valid(k: Int, name: String, j: Int) =
      codec.encode(Seq(k, org.apache.spark.unsafe.types.UTF8String.fromString(name), j))
    val near = (1 to 40).map { i =>
      val key = valid(random.nextInt(100), "n" + random.nextInt(3), random.nextInt(200))
      i % 4 match {
        case 0 => key.take(key.length - 1 - random.nextInt(3)) // cut short
        case 1 => key :+ random.nextInt(256).toByte // a byte too many
        case 2 => key.updated(key.length - 5, 1.toByte) // terminator 00 01: decodes, but this table writes 00 00
        case _ => key.updated(5, 0.toByte) // a 00 inside the text not escaped
      }
    }
    val randomKeys = (1 to 60).map(_ =>
      Array.fill(1 + random.nextInt(14))(Seq(0, 1, 0x41, 0x80, 0xff)(random.nextInt(5)).toByte)
    )
    val foreignButValid = Seq(valid(500, "from another tool", 7), valid(-3, "", 0))
    val keys = (near ++ randomKeys ++ foreignButValid).distinctBy(_.toSeq)
    withTable(t)(_.put(keys.zipWithIndex.map { case (key, i) =>
      new Put(key).addColumn(f, v, Bytes.toBytes(1000 + i))
    }.asJava))
    t -> keys.map(k => k -> parseBinary(k)).toMap
  }

  /** Our own reading of the binary key (k INT, name STRING, j INT), to judge the plugin's by. */
  private def parseBinary(key: Array[Byte]): Option[(Int, String, Int)] = {
    def int(at: Int) = Bytes.toInt(key, at) ^ Int.MinValue
    if (key.length < 10) return None
    val text = new java.io.ByteArrayOutputStream()
    var i = 4
    while (i + 1 < key.length && !(key(i) == 0 && key(i + 1) == 0)) {
      if (key(i) != 0) { text.write(key(i)); i += 1 }
      else if (key(i + 1) == -1) { text.write(0); i += 2 }
      else return None
    }
    if (i + 2 + 4 != key.length) None
    else Some((int(0), new String(text.toByteArray, UTF_8), int(i + 2)))
  }

  /** The well-formed rows of the binary table, as Spark shows them, from the SQL rows and ours. */
  private def wellFormed(where: (Int, String, Int) => Boolean): Seq[String] = {
    val (_, foreign) = binary
    val fromSql = (0 until 100).map(id => (id, s"n${id % 3}", id * 2, id))
    val others = foreign.toSeq.flatMap { case (_, parsed) => parsed.map(p => (p._1, p._2, p._3, -1)) }
    (fromSql ++ others).filter { case (k, n, j, _) => where(k, n, j) }.map { case (k, n, j, _) =>
      Row(k, n, j).toString
    }.sorted
  }

  describe("a binary-keyed table holding rows another tool wrote") {
    it("fails a query that reads such a row, naming the table, the row key and what is wrong with it") {
      val (t, foreign) = binary
      foreign.values.count(_.isEmpty) should be > 50
      val message = failure(s"SELECT k, name, j FROM $t")
      message should include(s"Table '$t'")
      message should include regex "row '.*' is not a row of the table"
      message should include("spark.sql.hbase.read.badRowKeys=skip")
      withClue("a range that holds bad rows fails too: ")(failure(s"SELECT * FROM $t WHERE k BETWEEN 0 AND 10") should
        include("is not a row of the table"))
    }

    it("fails an aggregate computed in the region servers on such a row too, with the same error") {
      val (t, _) = binary
      for (query <- Seq(s"SELECT count(*) FROM $t", s"SELECT name, count(*), sum(v) FROM $t GROUP BY name")) {
        withClue(s"$query: ") {
          inRegionServers(sql(query)) shouldBe true
          val message = failure(query)
          message should include(s"Table '$t'")
          message should include regex "row '.*' is not a row of the table: "
        }
      }
    }

    it(
      "with badRowKeys=skip has the region servers leave them out and count them: aggregates are Spark's over the well-formed rows"
    ) {
      val (t, foreign) = binary
      skipping {
        for (
          query <- Seq(
            s"SELECT count(*), count(v), sum(v), min(k), max(name) FROM $t",
            s"SELECT name, count(*), sum(v), min(j), max(k) FROM $t GROUP BY name",
            s"SELECT name, count(*), sum(v), max(j) FROM $t WHERE k BETWEEN -5 AND 70 GROUP BY name"
          )
        ) {
          withClue(s"$query: ") {
            val df = sql(query)
            inRegionServers(df) shouldBe true
            rowsOf(df) shouldBe inSpark(query)
          }
        }
        val all = sql(s"SELECT count(*) FROM $t")
        all.collect().head.getLong(0) shouldBe wellFormed((_, _, _) => true).size
        skipped(all) shouldBe foreign.values.count(_.isEmpty)
      }
    }

    it("reads the rows it can look up by key as before, whatever else the table holds") {
      val (t, _) = binary
      rowsOf(sql(s"SELECT k, name, j FROM $t WHERE k = 42 AND name = 'n0' AND j = 84")) shouldBe Seq("[42,n0,84]")
      rowsOf(sql(s"SELECT k, name, j FROM $t WHERE k = 500")) shouldBe Seq("[500,from another tool,7]")
    }

    it(
      "with badRowKeys=skip leaves them out and counts them: full scans, key ranges and lookups are Spark's over the well-formed rows"
    ) {
      val (t, foreign) = binary
      skipping {
        val all = sql(s"SELECT k, name, j FROM $t")
        rowsOf(all) shouldBe wellFormed((_, _, _) => true)
        skipped(all) shouldBe foreign.values.count(_.isEmpty)
        rowsOf(sql(s"SELECT k, name, j FROM $t WHERE k BETWEEN 3 AND 60")) shouldBe
          wellFormed((k, _, _) => k >= 3 && k <= 60)
        rowsOf(sql(s"SELECT k, name, j FROM $t WHERE k IN (1, 7, 500) AND name >= 'n1'")) shouldBe
          wellFormed((k, n, _) => Set(1, 7, 500)(k) && n >= "n1")
        rowsOf(sql(s"SELECT k, name, j FROM $t WHERE k = 42 AND name = 'n0' AND j = 84")) shouldBe Seq("[42,n0,84]")
        sql(s"SELECT count(*) FROM $t").collect().head.getLong(0) shouldBe wellFormed((_, _, _) => true).size
        sql(s"SELECT count(*), sum(v) FROM $t WHERE v < 1000").collect().head shouldBe Row(100L, 4950L)
      }
    }
  }

  /** Key (a STRING, b INT) as text "a|b", as another tool writes it. */
  private lazy val text: (String, Seq[String]) = {
    val t = uniqueName("badtextkeys")
    sql(
      s"CREATE TABLE $t (a STRING, b INT, v INT, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v]) IN StringFormat DELIMITER '|'"
    )
    sql(s"INSERT INTO $t SELECT concat('k', id % 5), CAST(id AS INT), CAST(id AS INT) FROM range(0, 50)")
    val alphabet = "ab|017-+ x"
    val randomKeys = (1 to 80).map(_ =>
      Seq.fill(1 + random.nextInt(7))(alphabet(random.nextInt(alphabet.length))).mkString
    )
    val handpicked = Seq("k1|007", "k2|+9", "k3| 4", "k4|", "|5", "k1|2147483648", "k9", "k1|1|2", "k2|-0", "x|12")
    val keys = (randomKeys ++ handpicked).distinct
    withTable(t)(_.put(keys.map(k => new Put(Bytes.toBytes(k)).addColumn(f, v, Bytes.toBytes("9"))).asJava))
    t -> keys
  }

  describe("a text-keyed table holding rows another tool wrote") {
    it("fails on a key that is not text of its key types, and with skip is Spark's reading of the well-formed keys") {
      val (t, foreign) = text
      import spark.implicits._
      // Spark's own reading of the text: the first part up to '|', the rest as an INT.
      val keys = (foreign ++ (0 until 50).map(id => s"k${id % 5}|$id")).toDF("key")
        .selectExpr(
          "substring_index(key, '|', 1) AS a",
          "try_cast(substr(key, instr(key, '|') + 1) AS INT) AS b",
          "instr(key, '|') > 0 AS split"
        )
        .where("split AND b IS NOT NULL").select("a", "b")
      val expected = rowsOf(keys)
      val bad = foreign.size + 50 - expected.size
      bad should be > 10
      failure(s"SELECT a, b FROM $t") should include regex
        s"Table '$t'.*row '.*' is not a row of the table: it is not a key of \\(STRING, INT\\)"
      withClue("an INT in text only Spark can parse: the aggregate stays in Spark, and fails the same way: ") {
        inRegionServers(sql(s"SELECT count(*) FROM $t")) shouldBe false
        failure(s"SELECT count(*) FROM $t") should include("is not a row of the table")
      }
      skipping {
        val all = sql(s"SELECT a, b FROM $t")
        rowsOf(all) shouldBe expected
        skipped(all) shouldBe bad
        rowsOf(sql(s"SELECT a, b FROM $t WHERE a = 'k1'")) shouldBe rowsOf(keys.where("a = 'k1'"))
        rowsOf(sql(s"SELECT a, b FROM $t WHERE a IN ('k2', 'x') AND b > 3")) shouldBe
          rowsOf(keys.where("a IN ('k2', 'x') AND b > 3"))
        sql(s"SELECT count(*) FROM $t").collect().head.getLong(0) shouldBe expected.size
      }
    }

    it("of strings alone is checked in the region servers: a key without its delimiter is not a row of the table") {
      val t = uniqueName("badstringkeys")
      sql(
        s"CREATE TABLE $t (a STRING, b STRING, v INT, PRIMARY KEY (a, b)) MAPPED BY ($t, COLS=[v=f.v]) IN StringFormat DELIMITER '|'"
      )
      val keys = Seq("x|1", "x|", "|y", "x|1|2", "no delimiter", "", "y|2")
      withTable(t)(_.put(keys.filter(_.nonEmpty).map(k =>
        new Put(Bytes.toBytes(k)).addColumn(f, v, Bytes.toBytes("7"))
      ).asJava))
      val query = s"SELECT a, count(*), min(b), max(b) FROM $t GROUP BY a"
      inRegionServers(sql(query)) shouldBe true
      failure(query) should include("'no delimiter' is not a row of the table")
      skipping {
        val df = sql(query)
        inRegionServers(df) shouldBe true
        rowsOf(df) shouldBe inSpark(query)
        rowsOf(df) shouldBe Seq("[,1,y,y]", "[x,3,,1|2]", "[y,1,2,2]")
        skipped(df) shouldBe 1
      }
    }
  }
}
