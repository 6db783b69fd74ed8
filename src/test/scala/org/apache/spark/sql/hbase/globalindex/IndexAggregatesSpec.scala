// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{Put, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.ScanMetrics
import org.apache.spark.sql.hbase.server.{IndexSpec, IndexTrust}
import org.apache.spark.sql.types.LongType

/**
 * Aggregates over a read through a covering global index, computed by the index's region servers
 * over the rows it vouches for, against Spark's answer over the same table read without the index
 * and with the feature off (docs/indexes.md, "Aggregates in the index's region servers").
 */
class IndexAggregatesSpec extends HBaseSuite {
  private val rows = 400

  private def keyOf(id: Long): Array[Byte] = new BinaryKeyCodec(Seq(LongType)).encode(Seq(id))

  /**
   * `rows` people keyed by id in 3 regions: email e{id % 40}@x (NULL every 13th), age id % 30 (NULL every
   * 11th), score id / 4 (NULL every 7th), name n{id}; by_email covers age and score, not name.
   */
  private def people(layout: String): String = {
    val t = uniqueName(s"agg_${layout.toLowerCase}")
    sql(s"""CREATE TABLE $t (id BIGINT, email STRING, age INT, score DECIMAL(10, 2), name STRING, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[email=f.email, age=f.age, score=g.score, name=g.name]) LAYOUT $layout
           |SPLIT ON ((${rows / 3}), (${2 * rows / 3}))""".stripMargin)
    sql(s"""INSERT INTO $t SELECT id, IF(id % 13 = 0, NULL, concat('e', id % 40, '@x')),
           |IF(id % 11 = 0, NULL, CAST(id % 30 AS INT)), IF(id % 7 = 0, NULL, CAST(id / 4 AS DECIMAL(10, 2))),
           |concat('n', id) FROM range($rows)""".stripMargin)
    sql(s"CREATE INDEX by_email ON $t USING global (email) OPTIONS (include 'age, score')")
    t
  }

  private def indexTable(t: String): String = s"$t.by_email.idx"

  private def aggregate(t: String, where: String, hint: String = "INDEX"): String =
    s"SELECT /*+ $hint($t${if (hint == "INDEX") ", by_email" else ""}) */ age, count(*), count(score), sum(score), " +
      s"avg(age), min(id), max(score) FROM $t WHERE $where GROUP BY age"

  private def sorted(df: DataFrame): Seq[String] = df.collect().toSeq.map(_.toString).sorted

  private def inIndexServers(df: DataFrame): Boolean =
    df.queryExecution.executedPlan.toString.contains("partial aggregate in the index's region servers")

  /** The answer of `query` through the index's region servers, and its scan's metrics. */
  private def answered(query: String): (Seq[String], Map[String, Long]) = {
    val df = sql(query)
    withClue(s"$query: ")(inIndexServers(df) shouldBe true)
    (sorted(df), ScanMetrics.of(df))
  }

  /** The same query read without the index, and with the index's rows aggregated on the driver: Spark's answer. */
  private def truth(t: String, where: String): Seq[String] = {
    val unindexed = sorted(sql(aggregate(t, where, hint = "NO_INDEX")))
    val onDriver = withConf(HBaseSQLConf.GlobalIndexServerAggregates.key -> "false") {
      val df = sql(aggregate(t, where))
      inIndexServers(df) shouldBe false
      sorted(df)
    }
    withClue(s"$where, aggregated on the driver and without the index: ")(onDriver shouldBe unindexed)
    unindexed
  }

  /** Puts a status cell on index row `key`, newer than what is there, as a write's first step would leave it. */
  private def setStatus(t: String, key: Array[Byte], status: Byte): Unit =
    withTable(indexTable(t))(_.put(new Put(key).addColumn(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS, Array(status))))

  /** The index key of data row `id` with this email: 0x01, the text, 0x00 0x00, the data key (docs/indexes.md). */
  private def indexKey(email: String, id: Long): Array[Byte] =
    (0x01.toByte +: Bytes.toBytes(email)) ++ Array[Byte](0, 0) ++ keyOf(id)

  /** The keys of the index rows, in key order, with the data row key each ends with. */
  private def indexRows(t: String): Seq[(Array[Byte], Long)] = withTable(indexTable(t)) { index =>
    index.getScanner(new Scan().withStopRow(Array[Byte](-1))).asScala.map { r =>
      r.getRow -> (Bytes.toLong(r.getRow.takeRight(8)) ^ Long.MinValue)
    }.toSeq
  }

  private val clauses = Seq(
    "email BETWEEN 'e1@x' AND 'e3@x'",
    "email IN ('e1@x', 'e20@x', 'nobody@x') AND age > 5",
    "email = 'e7@x' AND (score IS NULL OR score < 40)",
    "email LIKE 'e2%' AND id > 100",
    "email = 'nobody@x'"
  )

  describe("an aggregate over a read through a covering global index") {
    for (layout <- Seq("CELLS", "PACKED")) {
      it(s"is computed by the index's region servers where they compute all of it, with Spark's answer ($layout)") {
        val t = people(layout)
        withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> "0") {
          clauses.foreach { where =>
            val (rows, metrics) = answered(aggregate(t, where))
            withClue(s"$where: ")(rows shouldBe truth(t, where))
            withClue(s"$where, read from the data: ")(metrics("gets") shouldBe 0)
            if (where != "email = 'nobody@x'") withClue(s"$where, aggregated in the index: ")(
              metrics("indexRowsAggregated") should be > 0L
            )
          }
          // What EXPLAIN says, as docs/indexes.md shows it.
          sql(
            s"EXPLAIN SELECT age, count(*), sum(score) FROM $t WHERE email < 'e2@x' GROUP BY age"
          ).head().getString(0) should
            include("partial aggregate in the index's region servers: count(1), sum(score) group by age")
          def global(hint: String, where: String) =
            s"SELECT /*+ $hint */ count(*), sum(score), max(age) FROM $t WHERE $where"
          answered(global(s"INDEX($t, by_email)", "email = 'nobody@x'"))._1 shouldBe Seq("[0,null,null]")
          val some = "email > 'e35@x'"
          answered(global(s"INDEX($t, by_email)", some))._1 shouldBe sorted(sql(global(s"NO_INDEX($t)", some)))
          // Only the rows read from the data count toward the rows a read through the index takes.
          withConf(HBaseSQLConf.GlobalIndexMaxRows.key -> "3") {
            val (rows, metrics) = answered(aggregate(t, clauses.head))
            rows shouldBe truth(t, clauses.head)
            metrics("indexRowsAggregated") should be > 3L
          }
        }
      }
    }

    it("is left to the driver where the WHERE clause or the aggregate reads a column the index rows do not hold") {
      val t = people("CELLS")
      Seq(
        aggregate(t, "email = 'e1@x' AND name <> 'n1'"), // name is not covered
        s"SELECT /*+ INDEX($t, by_email) */ email, count(*) FROM $t WHERE email < 'e2@x' GROUP BY email",
        s"SELECT /*+ INDEX($t, by_email) */ count(DISTINCT age) FROM $t WHERE email < 'e2@x'", // not on the driver
        s"SELECT /*+ INDEX($t, by_email) */ age, count(*) FROM $t WHERE email < 'e2@x' AND score + 1 > 3 GROUP BY age"
      ).foreach { query =>
        val df = sql(query)
        withClue(s"$query: ")(inIndexServers(df) shouldBe false)
        df.collect()
      }
    }

    it("reads from the data the rows whose index rows are not VERIFIED, and only those, and still counts each once") {
      val t = people("CELLS")
      val where = "email BETWEEN 'e1@x' AND 'e3@x'"
      val expected = truth(t, where)
      val inRange = indexRows(t).filter { case (key, _) =>
        val email = Bytes.toString(key.slice(1, key.indexOf(0.toByte, 1)))
        email >= "e1@x" && email <= "e3@x"
      }
      // Two index rows left UNVERIFIED by a write whose last step never came: their data rows are as they say.
      inRange.take(2).foreach { case (key, _) => setStatus(t, key, IndexSpec.UNVERIFIED) }
      // Two UNVERIFIED index rows in the range, stale: one names a data row whose own index row is VERIFIED in the
      // range (e30@x sorts between e1@x and e3@x), the other a data row that does not exist.
      val other = indexRows(t).find { case (key, _) => Bytes.toString(key).contains("e30@x") }.get._2
      Seq(other, 100000L).foreach(id => setStatus(t, indexKey("e2@x", id), IndexSpec.UNVERIFIED))
      Waits.afterNow() // the index rows changed before the read began
      withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> "0") {
        val (rows, metrics) = answered(aggregate(t, where))
        rows shouldBe expected
        withClue("the rows read from the data, those the index rows not VERIFIED give: ")(metrics("gets") shouldBe 2)
        metrics("indexRowsAggregated") shouldBe metrics("indexRowsRead") - 4
      }
    }

    it(
      "answers from the index's rows on the driver where it cannot vouch for them: rows just changed, ranges a bulk load left"
    ) {
      val t = people("PACKED")
      val where = "email BETWEEN 'e1@x' AND 'e3@x'"
      val expected = truth(t, where)
      def fellBack(): Unit = {
        val (rows, metrics) = answered(aggregate(t, where))
        rows shouldBe truth(t, where)
        metrics("indexRowsAggregated") shouldBe 0
      }
      withClue("the build's rows, written within the last two minutes but before the index was ready: ")(
        answered(aggregate(t, where))._2("indexRowsAggregated") should be > 0L
      )
      sql(s"UPDATE $t SET score = score + 1 WHERE id = 41") // e1@x
      val updated = truth(t, where)
      updated should not be expected
      withClue("a row in the ranges was written within the last two minutes: ") {
        val (rows, metrics) = answered(aggregate(t, where))
        rows shouldBe updated
        metrics("indexRowsAggregated") shouldBe 0
      }
      withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> "0") {
        withTable(indexTable(t))(_.put(IndexTrust.untrusted(keyOf(0), keyOf(10), System.currentTimeMillis())))
        Waits.afterNow()
        withClue("another tool's bulk load left the index behind in a range: ")(fellBack())
      }
    }
  }
}
