// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.util.concurrent.{Callable, Executors, Semaphore, TimeUnit}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Put
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.types.LongType

/**
 * Reads through a global index while writers change the indexed column. The index's regions are
 * read one after another, so a row that a write moves from a region not read yet to one already
 * read would be missed, and one moved the other way named twice; every answer here must still be
 * one the rows could give, whatever the writes in between (docs/indexes.md, "A read across the
 * index's regions").
 */
class IndexReadsDuringWritesSpec extends HBaseSuite {
  private val f = Bytes.toBytes("f")
  private val v = Bytes.toBytes("v")

  private def keyOf(id: Long): Array[Byte] = new BinaryKeyCodec(Seq(LongType)).encode(Seq(id))

  /**
   * `rows` rows keyed by id, each with v 'a' (even ids) or 'z' and n = id, in 4 regions, with a
   * global index on v covering n, split so that 'a' and 'z' fall in different index regions.
   */
  private def flips(rows: Int): String = {
    val t = uniqueName("flips")
    sql(s"""CREATE TABLE $t (id BIGINT, v STRING, n BIGINT, w STRING, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[v=f.v, n=f.n, w=f.w]) LAYOUT CELLS
           |SPLIT ON ((${rows / 4}), (${rows / 2}), (${3 * rows / 4}))""".stripMargin)
    sql(s"INSERT INTO $t SELECT id, IF(id % 2 = 0, 'a', 'z'), id, 'w' FROM range($rows)")
    sql(s"CREATE INDEX by_v ON $t USING global (v) OPTIONS (include 'n')")
    // An index key: 0x01, the text, 0x00 0x00, the data key (docs/indexes.md, Storage).
    val between = Bytes.toBytes("\u0001b")
    val index = TableName.valueOf(s"$t.by_v.idx")
    def regions = withAdmin(_.getRegions(index).asScala.toSeq)
    if (!regions.exists(r => Bytes.equals(r.getStartKey, between))) {
      withAdmin(_.split(index, between))
      Waits.until("the index split between 'a' and 'z'")(regions.exists(r => Bytes.equals(r.getStartKey, between)))
    }
    t
  }

  private def scanOf(df: DataFrame): HBaseTableScan =
    df.queryExecution.executedPlan.collectFirst { case s: HBaseTableScan => s }.get

  describe("a read through a global index while writers move rows between its regions") {
    it(
      "gives every row once, as an aggregate, a covering read, a read of the data rows and a read in the index's order, never fewer or twice"
    ) {
      val rows = 3000
      val t = flips(rows)
      val stop = new AtomicBoolean(false)
      val (writes, updated) = (new AtomicInteger(), new AtomicInteger())
      val pool = Executors.newFixedThreadPool(2)
      // A plain HBase client all the time, and our UPDATE: both move rows between 'a' and 'z'.
      val client = pool.submit(new Callable[Unit] {
        def call(): Unit = withTable(t) { table =>
          val random = new Random(5)
          while (!stop.get()) {
            val batch = Seq.fill(20)(new Put(keyOf(random.nextInt(rows).toLong))
              .addColumn(f, v, Bytes.toBytes(if (random.nextBoolean()) "a" else "z")))
            table.put(batch.asJava)
            writes.addAndGet(batch.size)
          }
        }
      })
      // Two UPDATEs a read, beside it, rather than a Spark job always running.
      val turns = new Semaphore(0)
      val updates = pool.submit(new Callable[Unit] {
        def call(): Unit = {
          val session = spark.newSession()
          val random = new Random(6)
          while (!stop.get()) if (turns.tryAcquire(50, TimeUnit.MILLISECONDS)) {
            val from = random.nextInt(rows)
            session.sql(s"UPDATE $t SET v = IF(v = 'a', 'z', 'a') WHERE id BETWEEN $from AND ${from + 40}").collect()
            writes.incrementAndGet()
            updated.incrementAndGet()
          }
        }
      })
      val hint = s"/*+ INDEX($t, by_v) */"
      val answers =
        try {
          Waits.until("the writers have begun")(writes.get() > 100)
          (1 to 8).map { i =>
            val before = writes.get()
            turns.release(2)
            val answer = i % 4 match {
              case 0 =>
                // Planned in the index's region servers, which the rows changed meanwhile leave to the driver.
                val df = sql(s"SELECT $hint count(*), sum(n) FROM $t WHERE v IN ('a', 'z')")
                val plan = df.queryExecution.executedPlan.toString
                plan should include("partial aggregate in the index's region servers")
                ("aggregate", df.collect().toSeq, plan)
              case 1 =>
                val df = sql(s"SELECT $hint id, v FROM $t WHERE v IN ('a', 'z')")
                val read = df.collect().toSeq
                ("covering read", Seq(Row(read.size.toLong, read.map(_.getLong(0)).distinct.sum)), scanOf(df).toString)
              case 3 =>
                // Every row, 'a' before 'z', read in the index's order to the end.
                val df = sql(s"SELECT $hint id, n FROM $t WHERE v IS NOT NULL ORDER BY v, id LIMIT $rows")
                val read = df.collect().toSeq
                val plan = df.queryExecution.executedPlan.toString
                plan should include("IndexOrderLimit")
                ("read in the index's order", Seq(Row(read.size.toLong, read.map(_.getLong(0)).distinct.sum)), plan)
              case _ =>
                val df = sql(s"SELECT $hint id, w FROM $t WHERE v IN ('a', 'z')")
                val read = df.collect().toSeq
                (
                  "read of the data rows",
                  Seq(Row(read.size.toLong, read.map(_.getLong(0)).distinct.sum)),
                  scanOf(df).toString
                )
            }
            (answer, writes.get() - before)
          }
        } finally {
          stop.set(true)
          client.get(60, TimeUnit.SECONDS)
          updates.get(60, TimeUnit.SECONDS)
          pool.shutdown()
        }
      val every = Seq(Row(rows.toLong, rows.toLong * (rows - 1) / 2))
      answers.foreach { case ((what, answer, plan), during) =>
        withClue(s"$what during $during writes, by $plan: ") {
          plan should include("global index by_v")
          answer shouldBe every
        }
      }
      withClue("writes went on during the reads: ")(answers.count(_._2 > 0) should be >= 5)
      withClue("our UPDATEs among them: ")(updated.get() should be > 0)
      val checked = sql(s"CHECK INDEX by_v ON $t").collect().head
      withClue(s"CHECK INDEX after the writes: $checked ") {
        checked.getAs[Long]("missing") shouldBe 0
        checked.getAs[Long]("extra") shouldBe 0
        checked.getAs[Long]("stale") shouldBe 0
        checked.getAs[Long]("unverified") shouldBe 0
      }
    }

    it("reads from the data the rows whose index rows changed within recentWritesMillis before it, and only those") {
      val t = flips(400)
      withTable(t)(_.put(Seq(0L, 2L, 4L).map(id => new Put(keyOf(id)).addColumn(f, v, Bytes.toBytes("z"))).asJava))
      Waits.afterNow()
      val zs = ((0L to 4L by 2L) ++ (1L until 400L by 2L)).sorted
      def gets(window: String): Long = withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> window) {
        val df = sql(s"SELECT id, n FROM $t WHERE v = 'z'")
        df.collect().map(_.getLong(0)).sorted.toSeq shouldBe zs
        val scan = scanOf(df)
        scan.toString should include("covering global index by_v")
        scan.metrics("gets").value
      }
      withClue(
        "the three rows just written, by Gets; the build's, written within the hour but before the index was ready, from the index: "
      )(
        gets("3600000") shouldBe 3
      )
      withClue("with no window, every row from the index: ")(gets("0") shouldBe 0)
    }

    it("looks for the changed rows of an IN list's values without reading the index rows between them") {
      val t = uniqueName("spread")
      sql(s"CREATE TABLE $t (id BIGINT, v STRING, n BIGINT, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[v=f.v, n=f.n])")
      sql(s"INSERT INTO $t SELECT id, printf('v%04d', id), id FROM range(2000)")
      sql(s"CREATE INDEX by_v ON $t USING global (v) OPTIONS (include 'n')")
      val index = TableName.valueOf(s"$t.by_v.idx")
      def regions = regionMetrics(index.getNameAsString)
      // A family's one file holds the build's rows and the index's recent marks, as a compaction leaves it: a
      // read of the last hour's changes cannot skip it by its time range.
      withAdmin { admin => admin.flush(index); admin.majorCompact(index) }
      Waits.until("the index's files compacted into one a family") {
        val now = regions
        now.map(_.getStoreFileCount).sum == now.map(_.getStoreCount).sum
      }
      def indexRowsRead(): Long = regions.map(r => r.getReadRequestCount + r.getFilteredReadRequestCount).sum
      withConf(HBaseSQLConf.GlobalIndexRecentWrites.key -> "3600000") {
        val before = indexRowsRead()
        val df = sql(s"SELECT /*+ INDEX($t, by_v) */ id, n FROM $t WHERE v IN ('v0002', 'v1998')")
        df.collect().map(_.getLong(0)).sorted.toSeq shouldBe Seq(2L, 1998L)
        val read = indexRowsRead() - before
        withClue("the build's rows, from the index: ")(scanOf(df).metrics("gets").value shouldBe 0)
        withClue("index rows the region servers read, where 1,995 lie between the values: ")(read should be < 50L)
      }
    }
  }
}
