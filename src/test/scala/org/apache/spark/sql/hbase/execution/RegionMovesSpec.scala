// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * Regions moving between region servers (`Admin.move`, as the balancer does), splitting and
 * merging while queries read them: every answer stays exact, whether rows come from scans that are open while their region
 * moves, from scans whose rows the region servers filter, from skip scans on the second key
 * column, from Gets, or from partial aggregates computed in the region servers.
 */
class RegionMovesSpec extends HBaseSuite {
  import RegionMovesSpec._

  private val Rows = 8000

  /** k = 0..7999 in four regions, with j = k % 3 the second key column; g = k % 7, v = 3 k. */
  private def readings(): String = {
    val t = uniqueName("moving")
    sql(s"""CREATE TABLE $t (k INT, j INT, g INT, v BIGINT, PRIMARY KEY (k, j))
           |MAPPED BY ($t, COLS=[g=f.g, v=f.v]) SPLIT ON ((2000), (4000), (6000))""".stripMargin)
    sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 3 AS INT), CAST(id % 7 AS INT), id * 3 FROM range($Rows)")
    t
  }

  /**
   * Runs `body` while another thread keeps moving each region of `t` to the next region server,
   * one after the other; returns what `body` returned and how many moves completed meanwhile.
   */
  private def whileRegionsMove[T](t: String)(body: => T): (T, Int) = {
    val table = TableDefinitionStores.of(spark).get(t).get.hbaseTable
    val name = TableName.valueOf(table.namespace, table.name)
    val stop = new AtomicBoolean(false)
    val moves = new AtomicInteger(0)
    val mover = new Thread(() =>
      withAdmin { admin =>
        val servers = admin.getRegionServers.asScala.toSeq.sortBy(_.toString)
        var turn = 0
        while (!stop.get()) {
          admin.getRegions(name).asScala.foreach { region =>
            if (!stop.get()) {
              turn += 1
              admin.move(region.getEncodedNameAsBytes, servers(turn % servers.size))
              moves.incrementAndGet()
              changesMade.incrementAndGet()
            }
          }
        }
      }
    )
    mover.setDaemon(true)
    changing = true
    mover.start()
    try (body, moves.get())
    finally { changing = false; stop.set(true); mover.join(120000) }
  }

  private def expectedRows(keys: Seq[Int]): Seq[Row] = keys.map(k => Row(k, k % 3, k % 7, 3L * k))

  private val gets = Seq(5, 1999, 2000, 4321, 6000, 7999)
  private val whole = gets.map(k => s"(k = $k AND j = ${k % 3})").mkString(" OR ")

  /** Reads `t` every way once, each read checked against the rows as they were written. */
  private def everyWayOfReading(t: String): Unit = {
    // While regions change, each task's scan waits in the middle of its region for a change, so that
    // every scan meets one with its scanner open.
    val slowly = sql(s"SELECT * FROM $t").rdd.mapPartitions { rows =>
      val before = changesMade.get()
      scansOpened.incrementAndGet()
      rows.zipWithIndex.map { case (row, i) =>
        if (i == 1000) Waits.until("a region change while this scan was open")(!changing || changesMade.get() > before)
        row
      }
    }.collect().toSeq
    slowly.sortBy(_.getInt(0)) shouldBe expectedRows(0 until Rows)
    sql(s"SELECT * FROM $t WHERE k % 1000 < 10 AND k BETWEEN 0 AND 7999").collect().toSeq.sortBy(_.getInt(0)) shouldBe
      expectedRows((0 until Rows).filter(k => k % 1000 < 10))
    sql(s"SELECT * FROM $t WHERE j = 1").collect().toSeq.sortBy(_.getInt(0)) shouldBe
      expectedRows((0 until Rows).filter(_ % 3 == 1))
    sql(s"SELECT * FROM $t WHERE $whole").collect().toSeq.sortBy(_.getInt(0)) shouldBe expectedRows(gets)
    sql(s"SELECT g, count(*), sum(v) FROM $t GROUP BY g").collect().toSeq.sortBy(_.getInt(0)) shouldBe
      (0 until 7).map { g =>
        val ks = (0 until Rows).filter(_ % 7 == g)
        Row(g, ks.size.toLong, ks.map(3L * _).sum)
      }
    // Without GROUP BY: one task reads every region.
    sql(s"SELECT count(*), sum(v) FROM $t").collect().toSeq shouldBe
      Seq(Row(Rows.toLong, (0 until Rows).map(3L * _).sum))
  }

  describe("a region moved to another region server while queries read it") {
    it("leaves every scan, filtered scan, skip scan, Get and pushed-down aggregate exact") {
      val t = readings()
      assume(withAdmin(_.getRegionServers.size) >= 2, "moves a region to another region server: needs two or more")
      sql(s"EXPLAIN SELECT g, count(*), sum(v) FROM $t GROUP BY g").head().getString(0) should include(
        "partial aggregate in region servers"
      )
      sql(s"EXPLAIN SELECT count(*), sum(v) FROM $t").head().getString(0) should include(
        "regions read together in one task"
      )
      sql(s"EXPLAIN SELECT * FROM $t WHERE $whole").head().getString(0) should include("6 Gets")
      sql(s"EXPLAIN SELECT * FROM $t WHERE j = 1").head().getString(0) should include("skip scan (*, =1)")
      val (rounds, moves) = withConf(HBaseSQLConf.ScannerFetchSize.key -> "100") {
        whileRegionsMove(t)((1 to 4).map(_ => everyWayOfReading(t)).size)
      }
      rounds shouldBe 4
      withClue("regions moved while the queries ran: ")(moves should be >= 4)
    }
  }

  describe("a region split, and two regions merged, while queries read them") {
    it("leaves every scan, filtered scan, skip scan, Get and pushed-down aggregate exact") {
      val t = readings()
      val table = TableDefinitionStores.of(spark).get(t).get.hbaseTable
      val name = TableName.valueOf(table.namespace, table.name)
      def byStart(admin: org.apache.hadoop.hbase.client.Admin) =
        admin.getRegions(
          name
        ).asScala.sortBy(_.getStartKey)(Ordering.comparatorToOrdering(Bytes.BYTES_COMPARATOR)).toSeq
      val changed = new AtomicBoolean(false)
      @volatile var failure: Option[Throwable] = None
      val opened = scansOpened.get()
      val changer = new Thread(() =>
        try withAdmin { admin =>
            Waits.until("a scan of the first round under way")(scansOpened.get() > opened)
            admin.split(name, new BinaryKeyCodec(Seq(IntegerType)).encode(Seq(3000)))
            Waits.until(s"$t split into five regions")(admin.getRegions(name).size >= 5)
            changesMade.incrementAndGet()
            // The last two regions, never split: a daughter merges only after compaction and the catalog janitor.
            val regions = byStart(admin)
            admin.mergeRegionsAsync(
              Array(regions(3).getEncodedNameAsBytes, regions(4).getEncodedNameAsBytes),
              false
            ).get()
            changesMade.incrementAndGet()
          }
        catch { case e: Throwable => failure = Some(e) }
        finally { changing = false; changed.set(true) }
      )
      changer.setDaemon(true)
      withConf(HBaseSQLConf.ScannerFetchSize.key -> "100") {
        changing = true
        changer.start()
        var rounds = 0
        while (!changed.get() || rounds < 2) { everyWayOfReading(t); rounds += 1 }
        changer.join()
      }
      failure shouldBe None
      val keys = new BinaryKeyCodec(Seq(IntegerType))
      withAdmin(admin =>
        byStart(admin).map(r => if (r.getStartKey.isEmpty) None else keys.decode(r.getStartKey).headOption)
      ) shouldBe
        Seq(None, Some(2000), Some(3000), Some(4000))
      everyWayOfReading(t)
    }
  }
}

object RegionMovesSpec {

  /** Region moves, splits and merges made so far; a scan open while more are coming waits for one. */
  val changesMade = new AtomicInteger(0)
  @volatile var changing = false
  val scansOpened = new AtomicInteger(0)
}
