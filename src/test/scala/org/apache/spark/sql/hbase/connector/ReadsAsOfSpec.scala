// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import scala.util.Random

import org.apache.hadoop.hbase.client.{Delete, Mutation, Put}

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, execution, metadata}
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/** Reading a table as it was: TIMESTAMP AS OF and option asOfTimestamp, against cells written at known times. */
class ReadsAsOfSpec extends HBaseSuite {

  private val history = "FAMILIES (f (VERSIONS = 10, KEEP_DELETED_CELLS = TRUE))"

  private def table(families: String = history): String = {
    val t = uniqueName("asof")
    sql(
      s"CREATE TABLE $t (k INT, s STRING, v INT, PRIMARY KEY (k, s)) MAPPED BY ($t, COLS=[v=f.v]) LAYOUT CELLS $families SPLIT ON ((50))"
    )
    t
  }

  /**
   * Rows written at `millis` as our writers write them, but at a time of the test's choosing: a
   * NULL is a delete of the cell's versions up to then, and the row keeps an empty marker cell.
   */
  private def writeAt(t: String, millis: Long, rows: (Int, String, Integer)*): Unit = {
    val codec = new org.apache.spark.sql.hbase.codec.RowCodec(metadata.TableDefinitionStores.of(spark).get(t).get)
    val mutations: Seq[Mutation] = rows.flatMap { case (k, s, v) =>
      val row = InternalRow(k, UTF8String.fromString(s), v)
      val key = codec.rowKey(row)
      if (v == null) Seq(
        new Put(key).addColumn(
          codec.markerFamily,
          org.apache.spark.sql.hbase.codec.RowCodec.RowMarkerQualifier,
          millis,
          Array.emptyByteArray
        ),
        new Delete(key).addColumns(codec.families(0), codec.qualifiers(0), millis)
      )
      else Seq(new Put(key).addColumn(codec.families(0), codec.qualifiers(0), millis, codec.cellValues(row)(0)))
    }
    withTable(t)(table =>
      mutations.foreach {
        case p: Put => table.put(p)
        case d: Delete => table.delete(d)
      }
    )
  }

  private def at(seconds: Double) = s"timestamp_millis(${math.round(seconds * 1000)})"

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  describe("TIMESTAMP AS OF") {
    it("reads each cell's newest version written at or before that time") {
      val t = table()
      writeAt(t, 1000, (1, "a", 10), (60, "b", 600))
      writeAt(t, 2000, (1, "a", 11))
      writeAt(t, 3000, (1, "a", 12), (2, "c", 20))
      def asOf(seconds: Double) = rows(s"SELECT k, v FROM $t TIMESTAMP AS OF ${at(seconds)} ORDER BY k")
      asOf(0.999) shouldBe Nil
      asOf(1.0) shouldBe Seq(Row(1, 10), Row(60, 600))
      asOf(2.5) shouldBe Seq(Row(1, 11), Row(60, 600))
      asOf(3.0) shouldBe Seq(Row(1, 12), Row(2, 20), Row(60, 600))
      rows(s"SELECT k, v FROM $t ORDER BY k") shouldBe asOf(3.0)
      rows(s"SELECT t.v FROM $t FOR SYSTEM_TIME AS OF ${at(1.5)} AS t WHERE k = 1") shouldBe Seq(Row(10))
    }

    it("keeps key ranges, skip scans and aggregation in the region servers, and says so in EXPLAIN") {
      val t = table()
      writeAt(t, 1000, (1 to 99).map(k => (k, "x", Integer.valueOf(k))): _*)
      writeAt(t, 5000, (1 to 99).map(k => (k, "x", Integer.valueOf(-k))): _*)
      val keyed = sql(s"SELECT k, v FROM $t TIMESTAMP AS OF ${at(2)} WHERE k IN (3, 70) AND s = 'x'")
      keyed.collect().toSeq.sortBy(_.getInt(0)) shouldBe Seq(Row(3, 3), Row(70, 70))
      execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 2
      keyed.queryExecution.executedPlan.toString should include("as of 1970-01-01T00:00:02Z (2000 ms)")
      val summed = sql(s"SELECT count(*), sum(v) FROM $t TIMESTAMP AS OF ${at(2)} WHERE k > 10")
      summed.collect().toSeq shouldBe Seq(Row(89, (11 to 99).sum.toLong))
      summed.queryExecution.executedPlan.toString should include("partial aggregate in region servers")
      rows(s"SELECT sum(v) FROM $t WHERE k > 10") shouldBe Seq(Row(-(11 to 99).sum.toLong))
    }

    it(
      "sees cells deleted or set to NULL later when the family keeps deleted cells; otherwise they are gone from the past too"
    ) {
      for ((families, keeps) <- Seq(history -> true, "" -> false)) withClue(s"families: '$families'") {
        val t = table(families)
        sql(s"INSERT INTO $t VALUES (1, 'a', 10), (2, 'b', 20)")
        val before = Waits.afterNow()
        Waits.clockPast(before)
        sql(s"UPDATE $t SET v = NULL WHERE k = 1")
        sql(s"DELETE FROM $t WHERE k = 2")
        rows(s"SELECT * FROM $t") shouldBe Seq(Row(1, "a", null))
        val past = rows(s"SELECT * FROM $t TIMESTAMP AS OF timestamp_millis($before) ORDER BY k")
        if (keeps) past shouldBe Seq(Row(1, "a", 10), Row(2, "b", 20))
        // Row 1's value is masked by the later NULL, and its marker cell was written with the NULL.
        else past shouldBe Nil
      }
    }

    it("leaves range indexes out: they describe the rows as they are now") {
      val t = table()
      writeAt(t, 1000, (1 to 40).map(k => (k, "x", Integer.valueOf(k))): _*)
      sql(s"CREATE INDEX ${t}_v ON TABLE $t (v) OPTIONS (chunkRows = 4)")
      writeAt(t, 9000, (1 to 40).map(k => (k, "x", Integer.valueOf(k + 1000))): _*)
      sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
      val now = sql(s"SELECT k FROM $t WHERE v = 1007")
      now.collect().toSeq shouldBe Seq(Row(7))
      execution.ScanMetrics.of(now)("chunksSkipped") should be > 0L
      val past = sql(s"SELECT k FROM $t TIMESTAMP AS OF ${at(2)} WHERE v = 7")
      past.collect().toSeq shouldBe Seq(Row(7))
      execution.ScanMetrics.of(past)("chunksSkipped") shouldBe 0
    }

    it("refuses VERSION AS OF, naming the table, and a time that is not a timestamp, in Spark's words") {
      val t = table()
      intercept[HBaseSQLException](sql(s"SELECT * FROM $t VERSION AS OF 3")).getMessage should startWith(
        s"VERSION AS OF is not supported on HBase table '$t'"
      )
      intercept[org.apache.spark.sql.AnalysisException](sql(s"SELECT * FROM $t TIMESTAMP AS OF 'yesterday'"))
        .getCondition should startWith("INVALID_TIME_TRAVEL_TIMESTAMP_EXPR")
    }
  }

  describe("option asOfTimestamp") {
    it("reads the table as TIMESTAMP AS OF does, and is refused for writes") {
      val t = table()
      writeAt(t, 1000, (1, "a", 10))
      writeAt(t, 2000, (1, "a", 11))
      def reader = spark.read.format("hbase").option("table", t)
      withConf("spark.sql.session.timeZone" -> "UTC") {
        reader.option("asOfTimestamp", "1970-01-01 00:00:01.5").load().collect().toSeq shouldBe Seq(Row(1, "a", 10))
      }
      reader.load().collect().toSeq shouldBe Seq(Row(1, "a", 11))
      val error = intercept[HBaseSQLException](spark.range(1).selectExpr("CAST(id AS INT) AS k", "'z' AS s", "1 AS v")
        .write.format("hbase").option("table", t).option("asOfTimestamp", "1970-01-01 00:00:01").mode("append").save())
      error.getMessage shouldBe s"Writing to HBase table '$t': option asOfTimestamp applies to reads only"
    }
  }

  describe("reads as of random times against the versions written") {
    for (serverFilter <- Seq(true, false)) {
      it(
        s"return exactly the newest version at or before each time, ${if (serverFilter) "with" else "without"} the server jar's filter"
      ) {
        val t = table()
        val random = new Random(if (serverFilter) 21 else 22)
        // (k, s, time, v or NULL): each key's history, written at known times.
        val writes = for {
          k <- 0 until 120
          s = Seq("a", "b")(k % 2)
          time <- random.shuffle((1 to 9).map(_ * 1000L)).take(1 + random.nextInt(4))
        } yield (k, s, time, if (random.nextInt(5) == 0) null else Integer.valueOf(random.nextInt(50)))
        writes.groupBy(_._3).foreach { case (time, ws) => writeAt(t, time, ws.map(w => (w._1, w._2, w._4)): _*) }
        withConf(HBaseSQLConf.CustomFilter.key -> serverFilter.toString) {
          for (round <- 1 to 12) {
            val asOf = 500L + random.nextInt(9500)
            val lo = random.nextInt(120)
            val where = random.nextInt(3) match {
              case 0 => s"k BETWEEN $lo AND ${lo + 30}"
              case 1 => s"v > ${random.nextInt(50)}"
              case _ => s"k IN ($lo, ${lo + 1}, ${lo + 7}) OR v IS NULL"
            }
            val expected = writes.filter(_._3 <= asOf).groupBy(w => (w._1, w._2)).values.map(_.maxBy(_._3))
              .map(w => Row(w._1, w._2, w._4)).filter { r =>
                val (k, v) = (r.getInt(0), Option(r.get(2)).map(_.asInstanceOf[Int]))
                where match {
                  case _ if where.startsWith("k BETWEEN") => k >= lo && k <= lo + 30
                  case _ if where.startsWith("v >") => v.exists(_ > where.drop(4).toInt)
                  case _ => Set(lo, lo + 1, lo + 7).contains(k) || v.isEmpty
                }
              }.toSeq.sortBy(_.getInt(0))
            withClue(s"round $round: as of $asOf ms, WHERE $where") {
              rows(s"SELECT * FROM $t TIMESTAMP AS OF timestamp_millis($asOf) WHERE $where ORDER BY k") shouldBe
                expected
            }
          }
        }
      }
    }
  }
}
