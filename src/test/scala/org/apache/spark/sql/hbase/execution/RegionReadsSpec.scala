// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.util.concurrent.atomic.AtomicReference

import org.apache.hadoop.hbase.TableName

import org.apache.spark.sql.hbase.{HBaseSuite, RegionServerGauges}
import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}
import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.execution.SparkPlan
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanHelper
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.execution.{HBaseAggregateScan, HBaseTableScan, RegionScanners}
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * How regions are read, against the real HBase: whatever a read opens is given back on every
 * path, and the regions a single task or the driver reads together are cancelled together.
 */
class RegionReadsSpec extends HBaseSuite with AdaptiveSparkPlanHelper {

  private def create(t: String, rows: Int): Unit = {
    sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) " +
      s"SPLIT ON ((${rows / 3}), (${2 * rows / 3}))")
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 100 AS INT) FROM range(0, $rows)")
  }

  private def nodes(df: DataFrame): Seq[SparkPlan] = collectWithSubqueries(df.queryExecution.executedPlan) {
    case s: HBaseAggregateScan => s
    case s: HBaseTableScan => s
  }

  describe("a region read") {
    it("gives the shared connection back when its region cannot be opened, in scans, lookups and aggregates") {
      val t = uniqueName("reads_gone")
      create(t, 3000)
      val queries = Seq(
        s"SELECT k, v FROM $t WHERE v = 7", // a scan per region
        s"SELECT v FROM $t WHERE k IN (1, 1500, 2999)", // lookups, on the driver
        s"SELECT count(*), sum(v) FROM $t", // an aggregate reading its regions together
        s"SELECT v, count(*) FROM $t GROUP BY v" // an aggregate per region
      )
      val planned = queries.map { q =>
        val df = sql(q); df.collect(); nodes(df).head
      }
      planned.map(_.getClass.getSimpleName).toSet shouldBe Set("HBaseTableScan", "HBaseAggregateScan")
      withAdmin { admin => admin.disableTable(TableName.valueOf(t)); admin.deleteTable(TableName.valueOf(t)) }
      val before = HBaseConnections.borrowers(cluster)
      planned.zip(queries).foreach { case (node, query) =>
        withClue(s"$query: ") {
          val failure = intercept[Exception](node.executeCollect())
          failure.getMessage should include(t)
          // Tasks of the failed job that were still running end a moment later.
          eventually(20)(HBaseConnections.borrowers(cluster) shouldBe before)
        }
      }
    }
  }

  describe("the regions of one task") {
    it("are read one after another in key order, each closed when its rows run out") {
      val t = uniqueName("reads_tasks")
      create(t, 3000)
      val scan = nodes(sql(s"SELECT k FROM $t")).collectFirst { case s: HBaseTableScan => s }.get
      val partitions = scan.plan.partitions
      val several = partitions.indexWhere(_.size > 1)
      several should be >= 0
      // Each row of that task alone with the scanners this JVM holds open as it comes (local mode: it runs here).
      val seen = spark.sparkContext.runJob(
        scan.execute(),
        (rows: Iterator[org.apache.spark.sql.catalyst.InternalRow]) =>
          rows.map(row => (row.getInt(0), RegionScanners.openNow)).toArray,
        Seq(several)
      ).head
      // Split at 1000 and 2000: each region holds 1,000 rows.
      seen.length shouldBe 1000 * partitions(several).size
      seen.map(_._1).toSeq shouldBe sorted
      seen.map(_._2).distinct.toSeq shouldBe Seq(1)
      RegionScanners.openNow shouldBe 0
    }
  }

  describe("regions read together") {
    it("are cancelled together: a killed task closes every region's scanner at once, here and in the region servers") {
      assume(RegionServerGauges.embedded, "counts scanners in the embedded HBase's JVMs")
      val t = uniqueName("reads_cancel")
      create(t, 900000)
      // Each row its own batch: reading takes a while, with a scanner open in every region.
      val query = s"SELECT count(*), sum(v) FROM $t"
      withConf(HBaseSQLConf.CoprocessorMaxGroupBytes.key -> "1") {
        nodes(sql(query)).collect { case a: HBaseAggregateScan => a.plan.singleTask } shouldBe Seq(true)
        val whole = System.nanoTime()
        sql(query).collect()
        val wholeSeconds = (System.nanoTime() - whole) / 1e9
        RegionScanners.openNow shouldBe 0
        // Other suites' scanners may still be open in the region servers, until their leases end.
        var before = Long.MaxValue
        eventually(30) {
          val now = RegionServerGauges.activeScanners()
          now shouldBe defined
          before = now.get
        }

        val ended = new AtomicReference[String]()
        val listener = new SparkListener {
          override def onTaskEnd(e: SparkListenerTaskEnd): Unit = ended.set(e.reason.toString)
        }
        listening(listener) {
          val sc = spark.sparkContext
          val running = new Thread(() => {
            sc.setJobGroup("cancelled-read", "a read to cancel", interruptOnCancel = false)
            try sql(query).collect()
            catch { case _: Exception => () }
          })
          running.start()
          eventually(30)(RegionScanners.openNow shouldBe 3)
          val cancelledAt = System.nanoTime()
          sc.cancelJobGroup("cancelled-read")
          eventually(20)(RegionScanners.openNow shouldBe 0)
          val closedSeconds = (System.nanoTime() - cancelledAt) / 1e9
          eventually(20)(String.valueOf(ended.get()) should include("TaskKilled"))
          running.join(30000)
          info(
            f"the whole read took $wholeSeconds%.1f s; cancelled, its scanners were closed after $closedSeconds%.1f s"
          )
          withClue("the killed task stopped its reads, rather than finishing them: ")(
            closedSeconds should be < wholeSeconds / 2
          )
          withClue("and the region servers hold none of its scanners: ")(
            eventually(30)(RegionServerGauges.activeScanners().getOrElse(Long.MaxValue) should be <= before)
          )
        }
      }
    }
  }
}
