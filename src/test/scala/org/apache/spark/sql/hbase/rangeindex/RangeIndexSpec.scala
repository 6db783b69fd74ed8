// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import java.nio.charset.StandardCharsets
import java.nio.file.Files

import scala.jdk.CollectionConverters._

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Delete, Put}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, BinaryValueCodec, RowCodec}
import org.apache.spark.sql.hbase.execution.{HBaseTableScan, ScanMetrics}
import org.apache.spark.sql.hbase.execution.load.{FamilyStorage, LoadKey, LoadMetrics, RegionHFiles}
import org.apache.spark.sql.hbase.rangeindex.RangeIndexStore
import org.apache.spark.sql.hbase.server.{PackedCell, PackedCellWriter, ServerJar, WriteMark}
import org.apache.spark.sql.types.{IntegerType, LongType}
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/**
 * Range indexes end to end: CREATE / SHOW / DROP INDEX and ANALYZE TABLE, scans that skip the
 * chunks the statistics rule out, and answers that stay exact whoever writes to the table.
 */
class RangeIndexSpec extends HBaseSuite {
  private val shortLease = Seq(HBaseSQLConf.IndexMarkLease.key -> "1500", HBaseSQLConf.IndexClockSkew.key -> "0")

  /**
   * Sensor readings appended in time order: key (sensor, seq), `t` grows with seq, `r` is random.
   * In LAYOUT PACKED, family f's one cell per row holds t, r and note, in that order.
   */
  private def events(rows: Int = 2000, layout: String = "CELLS"): String = {
    val t = uniqueName("events")
    sql(s"""CREATE TABLE $t (sensor INT, seq INT, t BIGINT, r INT, note STRING, PRIMARY KEY (sensor, seq))
           |MAPPED BY ($t, COLS=[t=f.t, r=f.r, note=f.n]) LAYOUT $layout SPLIT ON ((1), (2), (3))""".stripMargin)
    sql(s"""INSERT INTO $t SELECT CAST(id % 4 AS INT), CAST(id DIV 4 AS INT), id * 10,
           |CAST((id * 7919) % 1000 AS INT), IF(id % 5 = 0, NULL, CONCAT('n', id)) FROM range($rows)""".stripMargin)
    t
  }

  private def scanOf(df: DataFrame): HBaseTableScan =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s }.get

  /** The rows of `query` with the index used and unused; they must be the same. */
  private def sameWithAndWithout(query: String): Seq[Row] = {
    val used = sql(query).collect().toSeq
    val unused = withConf(HBaseSQLConf.IndexEnabled.key -> "false")(sql(query).collect().toSeq)
    withClue(s"$query with the index and without: ")(used.map(_.toString).sorted shouldBe unused.map(_.toString).sorted)
    used
  }

  private def hbaseName(table: String): TableName = {
    val t = TableDefinitionStores.of(spark).get(table).get.hbaseTable
    TableName.valueOf(t.namespace, t.name)
  }

  private def keyOf(sensor: Int, seq: Int): Array[Byte] =
    new BinaryKeyCodec(Seq(IntegerType, IntegerType)).encode(Seq(sensor, seq))

  /** A write by a plain HBase client, which knows nothing of the index. */
  private def plainPut(table: String, sensor: Int, seq: Int, t: Long, r: Int): Unit =
    withTable(hbaseName(table).getNameAsString) {
      _.put(new Put(keyOf(sensor, seq))
        .addColumn(Bytes.toBytes("f"), Bytes.toBytes("t"), BinaryValueCodec.encode(LongType, t))
        .addColumn(Bytes.toBytes("f"), Bytes.toBytes("r"), BinaryValueCodec.encode(IntegerType, r)))
    }

  /** A write by a plain HBase client to a LAYOUT PACKED table of [[events]]: the row's whole packed cell. */
  private def plainPackedPut(table: String, sensor: Int, seq: Int, t: Option[Long], r: Int): Unit = {
    val slots = Array(t.map(BinaryValueCodec.encode(LongType, _)).orNull, BinaryValueCodec.encode(IntegerType, r), null)
    withTable(hbaseName(table).getNameAsString) {
      _.put(new Put(keyOf(sensor, seq)).addColumn(
        Bytes.toBytes("f"),
        PackedCell.QUALIFIER,
        PackedCellWriter.write(slots)
      ))
    }
  }

  private def showIndexes(table: String): Seq[Row] = sql(s"SHOW INDEXES ON $table").collect().toSeq

  private def csv(lines: String*): java.nio.file.Path = {
    val file = Files.createTempDirectory("range-index").resolve("rows.csv")
    Files.write(file, lines.mkString("", "\n", "\n").getBytes(StandardCharsets.UTF_8))
  }

  describe("CREATE INDEX") {
    it("builds chunk statistics that SHOW INDEXES lists, and a scan skips the chunks they rule out") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON TABLE $t USING minmax (t, r) OPTIONS (chunkRows = 50)")
        val Seq(shown) = showIndexes(t)
        shown.getString(0) shouldBe s"${t}_time"
        shown.getString(2) shouldBe "t, r"
        shown.getInt(3) shouldBe 50
        shown.getInt(4) shouldBe 40 // 4 regions of 500 rows
        shown.getInt(5) shouldBe 40
        shown.getString(6) shouldBe "ready"
        sql(s"DESCRIBE $t").collect().map(r => (r.getString(0), r.getString(1), r.getString(2))) should contain(
          (s"Range index ${t}_time", "minmax (t, r)", "chunkRows 50")
        )

        val query = s"SELECT sensor, seq, t FROM $t WHERE t >= 19000 AND t < 19400"
        sameWithAndWithout(query).size shouldBe 40
        val df = sql(query)
        df.collect()
        val explained = scanOf(df).simpleString(100)
        explained should include(s"range index ${t}_time: 4 of 40 chunks")
        val metrics = ScanMetrics.of(df)
        metrics("chunksSkipped") shouldBe 36
        withClue("rows read: at most one chunk per region beyond the matches: ")(metrics("rowsScanned") should
          be <= 200L)
      }
    }

    it("tells Spark's optimizer the table's row count and the indexed columns' bounds and NULLs") {
      val t = events(rows = 400)
      def stats = spark.table(t).queryExecution.optimizedPlan.stats
      stats.rowCount shouldBe None
      sql(s"CREATE INDEX i ON $t (t, note) OPTIONS (chunkRows = 30)")
      stats.rowCount shouldBe Some(400)
      val byName = stats.attributeStats.map { case (a, s) => a.name -> s }
      byName("t").min shouldBe Some(0L)
      byName("t").max shouldBe Some(3990L)
      byName("t").nullCount shouldBe Some(0)
      withClue("Spark keeps no string bounds: ")(byName("note").min shouldBe None)
      byName("note").nullCount shouldBe Some(80)
      byName.keySet shouldBe Set("t", "note")
      sql(s"EXPLAIN COST SELECT * FROM $t").head().getString(0) should include("rowCount=400")
    }

    it("gives Spark's answer for each predicate the statistics can judge, with the index used or not") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_i ON $t (t, r, note) OPTIONS (chunkRows = 64)")
        Seq(
          "t = 12340",
          "t < 100",
          "t <= 100 OR t > 19900",
          "t BETWEEN 5000 AND 5100",
          "t IN (10, 15000, 99999)",
          "NOT (t >= 50)",
          "r = 17",
          "r IS NULL",
          "note IS NULL AND t < 500",
          "note IS NOT NULL AND t > 19950",
          "note = 'n1999'",
          "note < 'n11'",
          "t > 100 AND r > 998",
          "sensor = 2 AND t < 1000",
          "t IS NULL"
        ).foreach(where => sameWithAndWithout(s"SELECT * FROM $t WHERE $where"))
      }
    }

    it("refuses what it cannot index, naming the part at fault, and leaves the table as it was") {
      val t = events(rows = 40)
      def failure(statement: String): String = intercept[Exception](sql(statement)).getMessage
      failure(s"CREATE INDEX i ON $t (seq)") should include("'seq' is a key column")
      failure(s"CREATE INDEX i ON $t (nope)") should include("column 'nope' does not exist")
      failure(s"CREATE INDEX i ON $t USING bloom (t)") should include("index type 'bloom' is not supported")
      failure(s"CREATE INDEX i ON $t (t, T)") should include("named twice")
      failure(s"CREATE INDEX i ON $t (t) OPTIONS (chunkRows = 0)") should
        include("chunkRows must be a positive whole number")
      failure(s"CREATE INDEX i ON $t (t) OPTIONS (size = 5)") should include("unknown option 'size'")
      TableDefinitionStores.of(spark).get(t).get.indexes shouldBe empty
      withAdmin(_.getDescriptor(hbaseName(t)).hasCoprocessor(ServerJar.WRITE_MARK_OBSERVER)) shouldBe false

      sql(s"CREATE INDEX i ON $t (t)")
      failure(s"CREATE INDEX i ON $t (r)") should include(s"table '$t' already has an index 'i'")
      sql(s"CREATE INDEX IF NOT EXISTS i ON $t (r)")
      TableDefinitionStores.of(spark).get(t).get.indexes.map(_.columns) shouldBe Seq(Seq("t"))
      failure(s"DROP INDEX j ON $t") should include(s"table '$t' has no index 'j'")
      failure(s"ALTER TABLE $t DROP COLUMN t") should include("'t' is in range index 'i'")
      sql(s"DROP INDEX IF EXISTS j ON $t")
      sql(s"DROP INDEX i ON $t")
      showIndexes(t) shouldBe empty
      withAdmin(_.getDescriptor(hbaseName(t)).hasCoprocessor(ServerJar.WRITE_MARK_OBSERVER)) shouldBe false
    }
  }

  describe("writes through spark-hbase-sql") {
    it("record what they write, so the chunks stay trusted, widened to hold the new rows") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t, r) OPTIONS (chunkRows = 50)")
        // New readings appended, and one old reading rewritten far outside its chunk's bounds.
        sql(
          s"INSERT INTO $t SELECT CAST(id % 4 AS INT), CAST(500 + id DIV 4 AS INT), 20000 + id * 10, 7, NULL FROM range(200)"
        )
        spark.createDataFrame(java.util.List.of(Row(0, 3, 5L, 1, "moved")), spark.table(t).schema).write.insertInto(t)
        val Seq(shown) = showIndexes(t)
        (shown.getInt(4), shown.getInt(5)) shouldBe ((40, 40))
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t >= 21900").size shouldBe 10
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").map(r =>
          (r.getInt(0), r.getInt(1))
        ).toSet shouldBe
          Set((0, 0), (0, 3))
        val df = sql(s"SELECT sensor, seq FROM $t WHERE t BETWEEN 5000 AND 5100")
        df.collect().length shouldBe 11
        withClue("chunks away from the new rows are still skipped: ")(ScanMetrics.of(df)("chunksSkipped") should
          be >= 30L)
      }
    }

    it("include LOAD DATA, LOAD DATA PARALLEL and bulk-loaded DataFrames, whose files are recorded before they load") {
      val t = events()
      withConf(shortLease: _*)(sql(s"CREATE INDEX ${t}_time ON $t (t, r) OPTIONS (chunkRows = 50)"))
      // Loads record under the default lease: a file must load within the first half of its mark's lease.
      val appended = csv((0 until 100).map(i => s"${i % 4},${500 + i / 4},${20000 + i * 10},7,loaded"): _*)
      sql(s"LOAD DATA LOCAL INPATH '$appended' INTO TABLE $t")
      sql(s"LOAD DATA PARALLEL LOCAL INPATH '${csv("0,3,5,1,moved")}' INTO TABLE $t")
      spark.createDataFrame(java.util.List.of(Row(2, 8, 3L, 2, "bulk")), spark.table(t).schema)
        .write.format("hbase").option("table", t).option("bulkload", "true").mode("append").save()
      val Seq(shown) = showIndexes(t)
      withClue("no chunk lost trust: ")((shown.getInt(4), shown.getInt(5)) shouldBe ((40, 40)))
      sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t >= 20900").size shouldBe 10
      sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").map(r => (r.getInt(0), r.getInt(1))).toSet shouldBe
        Set((0, 0), (0, 3), (2, 8))
      val df = sql(s"SELECT sensor, seq FROM $t WHERE t BETWEEN 5000 AND 5100")
      df.collect().length shouldBe 11
      withClue("chunks away from the new rows are still skipped: ")(ScanMetrics.of(df)("chunksSkipped") should
        be >= 30L)
    }

    it("give a query running beside an INSERT the rows from before it, and the ones already written, never fewer") {
      val t = events()
      // A lease long enough for a batch to land in: each batch must land within half of it.
      withConf(HBaseSQLConf.IndexMarkLease.key -> "60000") {
        sql(s"CREATE INDEX ${t}_time ON $t (t) OPTIONS (chunkRows = 50)")
        val query = s"SELECT count(*) FROM $t WHERE t >= 19000"
        val before = sql(query).head().getLong(0)
        val insert = scala.concurrent.Future(sql(
          s"INSERT INTO $t SELECT CAST(id % 4 AS INT), CAST(500 + id DIV 4 AS INT), 20000 + id, 0, NULL FROM range(40000)"
        ))(scala.concurrent.ExecutionContext.global)
        var seen = Vector(before)
        while (!insert.isCompleted) seen :+= sql(query).head().getLong(0)
        scala.concurrent.Await.result(insert, scala.concurrent.duration.Duration.Inf)
        seen :+= sql(query).head().getLong(0)
        withClue(s"counts seen while the INSERT ran: $seen: ") {
          seen.size should be > 2
          seen.last shouldBe before + 40000
          seen.zip(seen.tail).foreach { case (a, b) => b should be >= a }
        }
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t >= 59990").size shouldBe 10
      }
    }
  }

  describe("writes that do not go through spark-hbase-sql") {
    it("make the chunks they touch untrusted, so every answer stays exact; ANALYZE TABLE trusts them again") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t) OPTIONS (chunkRows = 50)")
        val early = s"SELECT sensor, seq, t FROM $t WHERE t < 200"
        sameWithAndWithout(early).size shouldBe 20
        // A new row far outside the bounds of the chunk it lands in, the last of sensor 3's region.
        plainPut(t, sensor = 3, seq = 600, t = 1, r = 5)
        sameWithAndWithout(early).size shouldBe 21
        showIndexes(t).head.getInt(5) shouldBe 39
        // Deleting the newest version of a cell brings back the one before: a write like any other.
        withTable(hbaseName(t).getNameAsString)(_.delete(new Delete(keyOf(1, 0)).addColumn(
          Bytes.toBytes("f"),
          Bytes.toBytes("t")
        )))
        sameWithAndWithout(s"SELECT sensor, seq, t FROM $t WHERE t IS NULL").size shouldBe 1
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t = 10").size shouldBe 0

        leasesEnded(t)
        sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
        val rebuilt = showIndexes(t).head
        (rebuilt.getInt(4), rebuilt.getInt(5)) shouldBe ((41, 41)) // sensor 3 now has 501 rows
        // (1, 0) lost its t and (3, 600) came in with t = 1.
        sameWithAndWithout(early).size shouldBe 20
        val df = sql(early)
        df.collect()
        ScanMetrics.of(df)("chunksSkipped") shouldBe 36
      }
    }

    it("include bulk loads of files no writer of ours recorded: the regions they load into lose trust until ANALYZE") {
      val t = events(rows = 400)
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t) OPTIONS (chunkRows = 10)")
        showIndexes(t).head.getInt(5) shouldBe 40
        val table = TableDefinitionStores.of(spark).get(t).get
        val codec = new RowCodec(table)
        def bulkLoad(fileName: String, sensor: Int, seq: Int, time: Long): Unit = {
          val row = InternalRow(sensor, seq, time, 3, UTF8String.fromString("outside"))
          val files = new RegionHFiles(
            cluster.toConfiguration,
            new Path(Files.createTempDirectory("outside-load").toUri),
            codec,
            FamilyStorage.of(cluster, hbaseName(t)),
            fileName,
            System.currentTimeMillis(),
            recorded = None,
            indexCells = None,
            LoadMetrics.unshown(spark.sparkContext)
          )
          files.write(Iterator((LoadKey(codec.rowKey(row), 0), codec.cellValues(row))))
          RegionHFiles.bulkLoad(cluster, hbaseName(t), files.close().map { case (f, p) => f -> Seq(p) })
        }
        bulkLoad("plain", sensor = 1, seq = 5, time = 1)
        withClue("sensor 1's region: ")(showIndexes(t).head.getInt(5) shouldBe 30)
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").size shouldBe 2
        bulkLoad(WriteMark.fileName("forged", "w-no-such-mark"), sensor = 2, seq = 5, time = 2)
        withClue("and sensor 2's region: ")(showIndexes(t).head.getInt(5) shouldBe 20)
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").size shouldBe 3

        leasesEnded(t)
        sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
        showIndexes(t).head.getInt(5) shouldBe 40
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").size shouldBe 3
      }
    }

    it("include increments, appends and check-and-mutates") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_i ON $t (t, note) OPTIONS (chunkRows = 50)")
        val (f, tq, note) = (Bytes.toBytes("f"), Bytes.toBytes("t"), Bytes.toBytes("n"))
        withTable(hbaseName(t).getNameAsString) { h =>
          h.increment(new org.apache.hadoop.hbase.client.Increment(keyOf(2, 10)).addColumn(f, tq, 100000L))
          h.append(new org.apache.hadoop.hbase.client.Append(keyOf(1, 3)).addColumn(f, note, Bytes.toBytes("zz")))
          val current = h.get(new org.apache.hadoop.hbase.client.Get(keyOf(3, 7)).addColumn(f, tq)).getValue(f, tq)
          h.checkAndMutate(org.apache.hadoop.hbase.client.CheckAndMutate.newBuilder(keyOf(
            3,
            7
          )).ifEquals(f, tq, current)
            .build(new Put(keyOf(3, 7)).addColumn(f, tq, BinaryValueCodec.encode(LongType, -5L)))).isSuccess shouldBe
            true
        }
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t > 100000") shouldBe Seq(Row(2, 10))
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE note = 'n13zz'") shouldBe Seq(Row(1, 3))
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 0") shouldBe Seq(Row(3, 7))
      }
    }

    it("stay exact across a region split and a merge") {
      val t = events()
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t) OPTIONS (chunkRows = 50)")
        val name = hbaseName(t)
        withAdmin { admin =>
          admin.split(name, keyOf(2, 250))
          eventually(admin.getRegions(name).size shouldBe 5)
        }
        sameWithAndWithout(s"SELECT * FROM $t WHERE t BETWEEN 10000 AND 10100").size shouldBe 11
        plainPut(t, sensor = 2, seq = 400, t = 10050, r = 1)
        sameWithAndWithout(s"SELECT * FROM $t WHERE t BETWEEN 10000 AND 10100").size shouldBe 12
        withAdmin { admin =>
          // The regions of sensors 0 and 1, never split: a daughter merges only once compaction and the
          // catalog janitor have done with its parent.
          val regions =
            admin.getRegions(name).asScala.sortBy(_.getStartKey)(Ordering.comparatorToOrdering(Bytes.BYTES_COMPARATOR))
          admin.mergeRegionsAsync(
            Array(regions(0).getEncodedNameAsBytes, regions(1).getEncodedNameAsBytes),
            false
          ).get()
          eventually(admin.getRegions(name).size shouldBe 4)
        }
        plainPut(t, sensor = 1, seq = 7, t = 10070, r = 1)
        sameWithAndWithout(s"SELECT * FROM $t WHERE t BETWEEN 10000 AND 10100").size shouldBe 13
        plainPut(t, sensor = 2, seq = 401, t = 10060, r = 1)
        sameWithAndWithout(s"SELECT * FROM $t WHERE t BETWEEN 10000 AND 10100").size shouldBe 14
      }
    }
  }

  describe("a range index on a LAYOUT PACKED table") {
    it("is built from the packed cells by CREATE INDEX and ANALYZE TABLE, and a scan skips the chunks it rules out") {
      val t = events(layout = "PACKED")
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_i ON TABLE $t (t, r, note) OPTIONS (chunkRows = 50)")
        val Seq(shown) = showIndexes(t)
        (shown.getInt(4), shown.getInt(5), shown.getString(6)) shouldBe ((40, 40, "ready"))
        val query = s"SELECT sensor, seq, t FROM $t WHERE t >= 19000 AND t < 19400"
        sameWithAndWithout(query).size shouldBe 40
        val df = sql(query)
        df.collect()
        ScanMetrics.of(df)("chunksSkipped") shouldBe 36
        Seq("t < 100", "r = 17", "r IS NULL", "note IS NULL AND t < 500", "note = 'n1999'", "t > 100 AND r > 998")
          .foreach(where => sameWithAndWithout(s"SELECT * FROM $t WHERE $where"))
        val counted = sql(s"SELECT sensor, count(*), sum(r) FROM $t WHERE t BETWEEN 5000 AND 5100 GROUP BY sensor")
        counted.collect().map(r => (r.getInt(0), r.getLong(1))).sorted.toSeq shouldBe
          Seq((0, 3L), (1, 3L), (2, 3L), (3, 2L))
        ScanMetrics.of(counted)("chunksSkipped") should be > 0L

        sql(s"DELETE FROM $t WHERE sensor = 0")
        leasesEnded(t)
        sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
        val rebuilt = showIndexes(t).head
        (rebuilt.getInt(4), rebuilt.getInt(5)) shouldBe ((31, 31)) // sensor 0's region is one empty chunk
        val again = sql(query)
        again.collect().length shouldBe 30
        ScanMetrics.of(again)("chunksSkipped") shouldBe 28
      }
    }

    it("stays exact through INSERT, UPDATE, DELETE and LOAD DATA: what it does not record, it stops trusting") {
      val t = events(layout = "PACKED")
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t, r) OPTIONS (chunkRows = 50)")
        sql(
          s"INSERT INTO $t SELECT CAST(id % 4 AS INT), CAST(500 + id DIV 4 AS INT), 20000 + id * 10, 7, NULL FROM range(200)"
        )
        spark.createDataFrame(java.util.List.of(Row(0, 3, 5L, 1, "moved")), spark.table(t).schema).write.insertInto(t)
        withClue("INSERT records what it writes: ")(showIndexes(t).head.getInt(5) shouldBe 40)
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t >= 21900").size shouldBe 10
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").toSet shouldBe Set(Row(0, 0), Row(0, 3))

        // Loads record under the default lease: a file must load within the first half of its mark's lease.
        withConf(HBaseSQLConf.IndexMarkLease.key -> HBaseSQLConf.IndexMarkLease.defaultValueString) {
          sql(s"LOAD DATA LOCAL INPATH '${csv("1,3,6,1,loaded")}' INTO TABLE $t")
          sql(s"LOAD DATA PARALLEL LOCAL INPATH '${csv("2,8,4,2,parallel")}' INTO TABLE $t")
        }
        withClue("LOAD DATA records what it loads: ")(showIndexes(t).head.getInt(5) shouldBe 40)
        sameWithAndWithout(s"SELECT sensor, seq, note FROM $t WHERE t < 10").map(_.toString).sorted shouldBe
          Seq("[0,0,null]", "[0,3,moved]", "[1,3,loaded]", "[2,8,parallel]")

        // Rows moved far outside their chunks' bounds, by statements that rewrite their packed cells.
        sql(s"UPDATE $t SET t = 2, r = 5000 WHERE sensor = 3 AND seq = 100").collect().toSeq shouldBe Seq(Row(1L))
        sql(s"UPDATE $t SET r = 4000 WHERE sensor = 1 AND seq = 50").collect().toSeq shouldBe Seq(Row(1L))
        withClue("UPDATE is marked, the chunk of each row it wrote: ")(showIndexes(t).head.getInt(5) shouldBe 38)
        sameWithAndWithout(s"SELECT sensor, seq, t, r FROM $t WHERE t = 2") shouldBe Seq(Row(3, 100, 2L, 5000))
        sameWithAndWithout(s"SELECT sensor, seq, t, note FROM $t WHERE r >= 4000").map(_.toString).sorted shouldBe
          Seq("[1,50,2010,n201]", "[3,100,2,n403]")
        sql(s"DELETE FROM $t WHERE t < 10 AND sensor < 2").collect().toSeq shouldBe Seq(Row(3L))
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t < 10").toSet shouldBe Set(Row(2, 8), Row(3, 100))

        leasesEnded(t)
        sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
        val rebuilt = showIndexes(t).head
        (rebuilt.getInt(4), rebuilt.getInt(5)) shouldBe ((44, 44)) // 548, 549, 550 and 550 rows
        val df = sql(s"SELECT sensor, seq FROM $t WHERE t < 10")
        df.collect().toSet shouldBe Set(Row(2, 8), Row(3, 100))
        // The chunks of the two rows, and sensor 1's first: LOAD DATA's mark, whose lease outlasts the
        // build, still widens it by the row it loaded there (t = 6, deleted since).
        ScanMetrics.of(df)("chunksSkipped") shouldBe 41
      }
    }

    it("makes the chunks an outside client's packed cells land in untrusted, so the index never hides their rows") {
      val t = events(layout = "PACKED")
      withConf(shortLease: _*) {
        sql(s"CREATE INDEX ${t}_time ON $t (t) OPTIONS (chunkRows = 50)")
        val early = s"SELECT sensor, seq, t FROM $t WHERE t < 200"
        sameWithAndWithout(early).size shouldBe 20
        // A new row far outside the bounds of the chunk it lands in, the last of sensor 3's region.
        plainPackedPut(t, sensor = 3, seq = 600, t = Some(1), r = 5)
        sameWithAndWithout(early).size shouldBe 21
        showIndexes(t).head.getInt(5) shouldBe 39
        // A row's packed cell rewritten: its t becomes NULL, and one late in sensor 2's region moves early.
        plainPackedPut(t, sensor = 1, seq = 0, t = None, r = 3)
        plainPackedPut(t, sensor = 2, seq = 450, t = Some(3), r = 3)
        sameWithAndWithout(s"SELECT sensor, seq, r FROM $t WHERE t IS NULL") shouldBe Seq(Row(1, 0, 3))
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t = 10").size shouldBe 0
        sameWithAndWithout(s"SELECT sensor, seq FROM $t WHERE t = 3") shouldBe Seq(Row(2, 450))
        showIndexes(t).head.getInt(5) shouldBe 37

        leasesEnded(t)
        sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
        val rebuilt = showIndexes(t).head
        (rebuilt.getInt(4), rebuilt.getInt(5)) shouldBe ((41, 41)) // sensor 3 now has 501 rows
        // (1, 0) lost its t, (3, 600) came in with t = 1 and (2, 450) with t = 3.
        sameWithAndWithout(early).size shouldBe 21
        val df = sql(early)
        df.collect()
        withClue("every chunk is skipped but each region's first and the two that took the moved rows: ")(
          ScanMetrics.of(df)("chunksSkipped") shouldBe 35
        )
      }
    }
  }

  describe("cells that expire (a column family TTL)") {
    it("vanish without a write: CREATE INDEX refuses them, and an index stops being trusted once a TTL is set") {
      val t = events(rows = 200)
      sql(s"CREATE INDEX i ON $t (t) OPTIONS (chunkRows = 10)")
      showIndexes(t).head.getInt(5) shouldBe 20
      val name = hbaseName(t)
      withAdmin { admin =>
        val family = admin.getDescriptor(name).getColumnFamily(Bytes.toBytes("f"))
        admin.modifyColumnFamily(
          name,
          org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.newBuilder(family).setTimeToLive(86400).build()
        )
      }
      showIndexes(t).head.getInt(5) shouldBe 0
      sameWithAndWithout(s"SELECT * FROM $t WHERE t < 100").size shouldBe 10
      intercept[HBaseSQLException](sql(s"CREATE INDEX j ON $t (r)")).getMessage should include(
        s"column family 'f' of HBase table '${TableDefinitionStores.of(spark).get(t).get.hbaseTable}' has a TTL"
      )
      TableDefinitionStores.of(spark).get(t).get.indexes.map(_.name) shouldBe Seq("i")
    }
  }

  describe("DROP TABLE") {
    it("forgets the table's indexes and takes the write guard off the HBase table") {
      val t = events(rows = 40)
      sql(s"CREATE INDEX i ON $t (t)")
      val name = hbaseName(t)
      sql(s"DROP TABLE $t")
      withAdmin(_.getDescriptor(name).hasCoprocessor(ServerJar.WRITE_MARK_OBSERVER)) shouldBe false
    }
  }

  private def eventually[T](body: => T): T = Waits.untilPasses(seconds = 60, everyMs = 200)(body)

  /**
   * Waits until the leases of the write marks made so far under `shortLease` have ended, by the
   * clock of the index table's region server, which ANALYZE TABLE judges them by. (Marks of longer
   * leases, such as the region servers' own for outside writes, are not waited for.)
   */
  private def leasesEnded(t: String): Unit = {
    val store = RangeIndexStore.of(cluster, spark.sessionState.conf.getConf(HBaseSQLConf.IndexTable))
    val until = store.serverTime() + spark.sessionState.conf.getConf(HBaseSQLConf.IndexMarkLease)
    Waits.until(s"the short write mark leases over $t ending at $until ms", everyMs = 50)(store.serverTime() > until)
  }
}
