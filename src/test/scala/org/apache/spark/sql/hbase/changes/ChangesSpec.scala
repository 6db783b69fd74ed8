// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.hadoop.hbase.client.{Delete, Mutation, Put}

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, execution, metadata}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.changes.{ChangePosition, ChangeRead, HBaseChangesRelation}
import org.apache.spark.sql.hbase.changes.NextChanges
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/**
 * Reading the rows of a table written in a span of time (issue 37): which rows a span holds,
 * with what values and change type, how spans that cut through one millisecond fit together,
 * option changesSince, EXPLAIN, and the errors of bad options.
 */
class ChangesSpec extends HBaseSuite {

  private def table(): String = {
    val t = uniqueName("changes")
    sql(
      s"CREATE TABLE $t (k INT, s STRING, v INT, PRIMARY KEY (k, s)) MAPPED BY ($t, COLS=[v=f.v]) LAYOUT CELLS SPLIT ON ((50))"
    )
    t
  }

  private def tableDef(t: String) = metadata.TableDefinitionStores.of(spark).get(t).get

  /** Puts as a plain HBase client writes them, at `millis` (None: the region server's clock). */
  private def put(t: String, millis: Option[Long], rows: (Int, String, Int)*): Unit = {
    val codec = new RowCodec(tableDef(t))
    val puts: Seq[Mutation] = rows.map { case (k, s, v) =>
      val row = InternalRow(k, UTF8String.fromString(s), v)
      val key = codec.rowKey(row)
      val ts = millis.getOrElse(org.apache.hadoop.hbase.HConstants.LATEST_TIMESTAMP)
      new Put(key).addColumn(codec.families(0), codec.qualifiers(0), ts, codec.cellValues(row)(0))
    }
    withTable(t)(table => puts.foreach(p => table.put(p.asInstanceOf[Put])))
  }

  /** A plain HBase delete of whole rows at `millis`. */
  private def deleteRows(t: String, millis: Long, keys: (Int, String)*): Unit = {
    val codec = new RowCodec(tableDef(t))
    withTable(t)(table =>
      keys.foreach { case (k, s) =>
        table.delete(new Delete(codec.rowKey(InternalRow(k, UTF8String.fromString(s), null)), millis))
      }
    )
  }

  private def key(t: String, k: Int, s: String) =
    new RowCodec(tableDef(t)).rowKey(InternalRow(k, UTF8String.fromString(s), null))

  private def read(t: String, from: ChangePosition, to: ChangePosition) =
    ChangeRead(tableDef(t), cluster, from, to, fetchSize = 2, skipBadRowKeys = false)

  private def changes(read: ChangeRead): DataFrame =
    spark.baseRelationToDataFrame(HBaseChangesRelation(read)(spark.sqlContext))

  /** (k, s, v, change type, commit millis), in key order. */
  private def rows(df: DataFrame): Seq[Row] =
    df.selectExpr("k", "s", "v", "_change_type", "unix_millis(_commit_timestamp)").collect().toSeq
      .sortBy(r => (r.getInt(0), r.getString(1)))

  private def at(millis: Long) = ChangePosition(millis, None)

  describe("a read of changes") {
    it("returns each row with a write in its span once, with its current values and its latest write time") {
      val t = table()
      put(t, Some(1000), (1, "a", 10), (60, "b", 600))
      put(t, Some(2000), (1, "a", 11))
      put(t, Some(3000), (2, "c", 20))
      put(t, Some(4000), (60, "b", 601))
      rows(changes(read(t, at(1500), at(3000)))) shouldBe Seq(Row(1, "a", 11, "upsert", 2000L))
      rows(changes(read(t, at(1000), at(3001)))) shouldBe Seq(
        Row(1, "a", 11, "upsert", 2000L),
        Row(2, "c", 20, "upsert", 3000L),
        // Its current value, though the write in the span is the older one.
        Row(60, "b", 601, "upsert", 1000L)
      )
      rows(changes(read(t, at(4001), at(9000)))) shouldBe Nil
    }

    it("returns a row deleted in its span as a delete with its key, by our DELETE and by a plain HBase Delete") {
      val t = table()
      put(t, Some(1000), (1, "a", 10), (2, "b", 20), (60, "c", 600), (70, "d", 700))
      deleteRows(t, 2000, (2, "b"))
      deleteRows(t, 500, (70, "d")) // a marker older than the cells hides nothing
      rows(changes(read(t, at(1500), at(3000)))) shouldBe Seq(Row(2, "b", null, "delete", 2000L))
      val before = System.currentTimeMillis()
      sql(s"DELETE FROM $t WHERE k = 60")
      val deleted = rows(changes(read(t, at(before), at(System.currentTimeMillis() + 1))))
      deleted.map(r => (r.get(0), r.get(1), r.get(2), r.get(3))) shouldBe Seq((60, "c", null, "delete"))
      // Every row had a write at 1000; two are gone now, and the marker at 500 hid nothing of row 70.
      rows(changes(read(t, at(0), at(1500)))) shouldBe Seq(
        Row(1, "a", 10, "upsert", 1000L),
        Row(2, "b", null, "delete", 1000L),
        Row(60, "c", null, "delete", 1000L),
        Row(70, "d", 700, "upsert", 1000L)
      )
    }

    it("includes rows written through us and by another client at the region server's time") {
      val t = table()
      val before = System.currentTimeMillis()
      sql(s"INSERT INTO $t VALUES (5, 'x', 50), (55, 'y', 550)")
      put(t, None, (7, "z", 70))
      sql(s"UPDATE $t SET v = 51 WHERE k = 5")
      val found = rows(changes(read(t, at(before), at(System.currentTimeMillis() + 1))))
      found.map(r => (r.getInt(0), r.getString(1), r.getInt(2), r.getString(3))) shouldBe
        Seq((5, "x", 51, "upsert"), (7, "z", 70, "upsert"), (55, "y", 550, "upsert"))
      found.foreach(r => r.getLong(4) should be >= before)
    }

    it("splits the rows of one millisecond by key, so that spans cut there return each row once") {
      val t = table()
      put(t, Some(5000), (1 to 5).map(k => (k, "m", k)): _*)
      val cut = ChangePosition(5000, Some(key(t, 3, "m")))
      rows(changes(read(t, at(0), cut))).map(_.getInt(0)) shouldBe Seq(1, 2, 3)
      rows(changes(read(t, cut, at(5001)))).map(_.getInt(0)) shouldBe Seq(4, 5)
      // A row of the first part written again later is in the second part.
      put(t, Some(5000 + 1), (2, "m", 22))
      rows(changes(read(t, cut, at(5002)))).map(r => (r.getInt(0), r.getInt(2))) shouldBe Seq((2, 22), (4, 4), (5, 5))
    }

    it("is cut after the n-th row by NextChanges, and the parts hold every row once, n at most each") {
      val t = table()
      val writes = Seq(1000L -> Seq(1, 51, 2), 1001L -> Seq(3), 1002L -> Seq(52, 4, 5, 53), 1005L -> Seq(1, 6))
      writes.foreach { case (ms, ks) => put(t, Some(ms), ks.map(k => (k, "r", k * 10)): _*) }
      val end = at(2000)
      val batches = Iterator.unfold(at(1000)) { from =>
        NextChanges.end(read(t, from, end), Some(2)).map { to =>
          (rows(changes(read(t, from, to))).map(_.getInt(0)), to)
        }
      }.toList
      batches.foreach(_.size should be <= 2)
      batches.flatten.sorted shouldBe Seq(1, 1, 2, 3, 4, 5, 6, 51, 52, 53)
      // Row 1 is delivered once for its write at 1000 and once for the one at 1005, not twice for either.
      batches.size shouldBe 5
      NextChanges.end(read(t, at(1000), end), None) shouldBe Some(end)
      NextChanges.end(read(t, at(1006), end), Some(2)) shouldBe None
    }

    it("reads no store file whose cells are all older than its span, as HBase's scan metrics show") {
      val t = table()
      put(t, Some(1000), (1 to 50).map(k => (k * 2, "old", k)): _*)
      withAdmin(_.flush(org.apache.hadoop.hbase.TableName.valueOf(t)))
      val now = System.currentTimeMillis()
      def measured(from: Long) = {
        val df = changes(read(t, at(from), at(now)))
        val count = df.collect().length
        val scan = df.queryExecution.executedPlan.collectFirst {
          case s: org.apache.spark.sql.hbase.changes.HBaseChangesScan => s
        }.get
        (count, scan.metrics("blockBytesScanned").value, execution.ScanMetrics.of(df)("rowsScanned"))
      }
      val (recent, recentBytes, recentRows) = measured(now - 60000)
      (recent, recentBytes, recentRows) shouldBe ((0, 0L, 0L))
      val (all, allBytes, allRows) = measured(0)
      all shouldBe 50
      allBytes should be > 0L
      allRows shouldBe 100 // 50 by the time-range scan, 50 by the Gets of their current values
      NextChanges.measured(read(t, at(now - 60000), at(now)), Some(10)) shouldBe ((None, 0L, 0L))
      val (found, _, oldBytes) = NextChanges.measured(read(t, at(0), at(now)), Some(10))
      found.map(_.millis) shouldBe Some(1000L)
      oldBytes should be > 0L
    }

    it("returns what SELECT returns for the rows written, in every layout, with write-time columns too") {
      val often = "IF(id % 4 = 0, NULL, concat('s', id))"
      val layouts = Seq(
        (
          "(k INT, s STRING, n BIGINT, s_at TIMESTAMP, PRIMARY KEY (k))",
          ", COLS=[s=f.s, n=g.n, s_at=WRITETIME(f.s)])",
          often
        ),
        ("(k INT, s STRING, n BIGINT, PRIMARY KEY (k))", ", COLS=[s=f.s, n=g.n]) LAYOUT PACKED", often),
        ("(k INT, s STRING, n BIGINT, PRIMARY KEY (k, s, n))", ")", "concat('s', id)") // key-only
      )
      layouts.foreach { case (columns, mapping, sValues) =>
        val t = uniqueName("layouts")
        sql(s"CREATE TABLE $t $columns MAPPED BY ($t$mapping SPLIT ON ((10), (20))")
        val before = System.currentTimeMillis()
        sql(s"INSERT INTO $t (k, s, n) SELECT CAST(id AS INT), $sValues, id * 7 FROM range(30)")
        sql(s"DELETE FROM $t WHERE k % 5 = 0")
        if (!mapping.startsWith(")")) sql(s"UPDATE $t SET s = 'new' WHERE k % 3 = 0")
        withConf(HBaseSQLConf.ChangesLag.key -> "0") {
          Waits.clockPast(System.currentTimeMillis())
          val found = spark.read.format("hbase").option("table", t).option("changesSince", before.toString).load()
          val upserts = found.where("_change_type = 'upsert'").drop("_change_type", "_commit_timestamp")
          withClue(t) {
            upserts.collect().toSeq.sortBy(_.getInt(0)) shouldBe
              sql(s"SELECT * FROM $t").collect().toSeq.sortBy(_.getInt(0))
            found.where("_change_type = 'delete'").select("k").collect().map(_.getInt(0)).sorted shouldBe
              (0 until 30 by 5)
          }
        }
      }
    }

    it("shows its span in EXPLAIN") {
      val t = table()
      val plan =
        changes(read(t, at(1500), ChangePosition(3000, Some(key(t, 3, "m"))))).queryExecution.executedPlan.toString
      plan should include(
        s"Scan HBaseChanges $t [$t] written after 1970-01-01T00:00:01.500Z (1500 ms), " +
          "up to 1970-01-01T00:00:03Z (3000 ms) after row "
      )
      plan should include("cell time range [1500, 3001) ms")
    }
  }

  describe("option changesSince") {
    it("reads the rows written since then up to the clock less spark.sql.hbase.changes.lagMillis") {
      val t = table()
      put(t, Some(1000), (1, "a", 10))
      put(t, Some(2000), (2, "b", 20))
      sql(s"INSERT INTO $t VALUES (3, 'c', 30)")
      def since(value: String) = spark.read.format("hbase").option("table", t).option("changesSince", value).load()
      withConf(HBaseSQLConf.ChangesLag.key -> "600000") {
        rows(since("1500")).map(_.getInt(0)) shouldBe Seq(2)
        rows(since("1970-01-01 00:00:00.5")).map(_.getInt(0)) shouldBe Seq(1, 2)
      }
      withConf(HBaseSQLConf.ChangesLag.key -> "0") {
        Waits.clockPast(System.currentTimeMillis())
        rows(since("1500")).map(_.getInt(0)) shouldBe Seq(2, 3)
      }
    }

    it("refuses a time in the future, a bad timestamp, asOfTimestamp beside it, and an unknown table") {
      val t = table()
      def load(options: (String, String)*) = spark.read.format("hbase").options(options.toMap).load()
      def error(options: (String, String)*) = the[HBaseSQLException] thrownBy load(options: _*)
      val future = error("table" -> t, "changesSince" -> "2999-01-01 00:00:00").getMessage
      future should include(s"Reading the changes of HBase table '$t': changesSince 2999-01-01")
      future should include("is in the future")
      error("table" -> t, "changesSince" -> "yesterday").getMessage shouldBe
        s"Reading the changes of HBase table '$t': option changesSince 'yesterday' is not a timestamp " +
        "(such as '2026-11-24 10:00:00') or epoch milliseconds"
      error("table" -> t, "changesSince" -> "0", "asOfTimestamp" -> "2026-01-01 00:00:00").getMessage should include(
        "options changesSince and asOfTimestamp cannot be combined"
      )
      error("table" -> "no_such_table", "changesSince" -> "0").getMessage should include(
        "HBase table 'no_such_table' does not exist"
      )
    }
  }

  describe("hbase_changes(table, since)") {
    it("reads what option changesSince reads, in SQL, and says what is wrong with its arguments") {
      val t = table()
      put(t, Some(1000), (1, "a", 10))
      put(t, Some(2000), (2, "b", 20), (60, "c", 600))
      deleteRows(t, 3000, (60, "c"))
      val query = s"SELECT * FROM hbase_changes('$t', TIMESTAMP '1970-01-01 00:00:01.5') WHERE k > 1"
      rows(sql(query)) shouldBe Seq(Row(2, "b", 20, "upsert", 2000L), Row(60, "c", null, "delete", 3000L))
      rows(sql(query)) shouldBe
        rows(spark.read.format("hbase").option("table", t).option("changesSince", "1500").load().where("k > 1"))
      sql(s"EXPLAIN $query").collect().head.getString(0) should include("cell time range [1500, ")
      def error(text: String) = {
        // Ours still once Spark gave it the function's position, and without the statement's text as a context
        // with no error class, which PySpark cannot print (tests/test_bad_input.py).
        val e = the[HBaseSQLException] thrownBy sql(text).collect()
        e.getQueryContext shouldBe empty
        e.getMessage
      }
      error("SELECT * FROM hbase_changes('no_such_table', TIMESTAMP '2026-01-01 00:00:00')") should include(
        "HBase table 'no_such_table' does not exist"
      )
      error(s"SELECT * FROM hbase_changes('$t')") should include("hbase_changes takes 2 arguments")
      error(s"SELECT * FROM hbase_changes('$t')") should endWith("; line 1 pos 14")
      error(s"SELECT * FROM hbase_changes('$t', 'soon')") should include(
        s"hbase_changes('$t', ...): its second argument 'soon' is not a TIMESTAMP"
      )
      error(s"SELECT * FROM hbase_changes('$t', TIMESTAMP '2999-01-01 00:00:00')") should include("is in the future")
    }
  }
}
