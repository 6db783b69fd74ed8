// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import java.nio.file.Files
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.Put

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, metadata}
import org.apache.spark.sql.{DataFrame, Row}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.streaming.runtime.SerializedOffset
import org.apache.spark.sql.hbase.changes.{ChangePosition, HBaseChangesRelation}
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.changes.ChangeOptions
import org.apache.spark.sql.hbase.changes.{ChangeOffset, HBaseChangeSource}
import org.apache.spark.sql.streaming.Trigger
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/**
 * `spark.readStream.format("hbase")` (issue 37): micro-batches of the rows written since the
 * last one, up to the clock less the lag; what a late write is; restarts from a checkpoint.
 */
class ChangeStreamSpec extends HBaseSuite {

  private def table(): String = {
    val t = uniqueName("stream")
    sql(
      s"CREATE TABLE $t (k INT, s STRING, v INT, PRIMARY KEY (k, s)) MAPPED BY ($t, COLS=[v=f.v]) LAYOUT CELLS SPLIT ON ((50))"
    )
    t
  }

  private def tableDef(t: String) = metadata.TableDefinitionStores.of(spark).get(t).get

  private def put(t: String, millis: Option[Long], rows: (Int, Int)*): Unit = {
    val codec = new RowCodec(tableDef(t))
    withTable(t) { table =>
      rows.foreach { case (k, v) =>
        val row = InternalRow(k, UTF8String.fromString("s"), v)
        val ts = millis.getOrElse(org.apache.hadoop.hbase.HConstants.LATEST_TIMESTAMP)
        table.put(new Put(codec.rowKey(row)).addColumn(
          codec.families(0),
          codec.qualifiers(0),
          ts,
          codec.cellValues(row)(0)
        ))
      }
    }
  }

  /** A batch's rows as (k, v, change type), read through the relation the batch's DataFrame reads. */
  private def rowsOf(batch: DataFrame): Seq[(Int, Any, String)] = {
    val relations = batch.queryExecution.analyzed.collect { case LogicalRelation(r: HBaseChangesRelation, _, _, _, _) =>
      r
    }
    relations.flatMap { r =>
      spark.baseRelationToDataFrame(r).selectExpr("k", "v", "_change_type").collect().toSeq
        .map(row => (row.getInt(0), row.get(1), row.getString(2)))
    }.sortBy(_._1)
  }

  describe("a stream of changes, with its clock in the test's hands") {
    it("delivers the rows written up to the clock less the lag, a row written twice once, deletes as deletes") {
      val t = table()
      var now = 3000L
      val source = ChangeOptions.source(spark.sqlContext, tableDef(t), cluster, Map("startingTimestamp" -> "1000"))
      val clocked = new HBaseChangeSource(
        spark.sqlContext,
        ChangeOptions.read(spark.sqlContext, tableDef(t), cluster, 0L, "test"),
        ChangePosition(1000, None),
        lagMillis = 500,
        maxRows = None,
        clock = () => now
      )
      source.schema shouldBe clocked.schema
      val limit = clocked.getDefaultReadLimit
      // The first batch only records where the stream starts.
      val first = clocked.latestOffset(null, limit)
      first.json shouldBe """{"version":1,"timestamp":1000}"""
      clocked.getBatch(None, first.asInstanceOf[ChangeOffset]).isStreaming shouldBe true

      put(t, Some(999), (9, 90)) // before the start
      put(t, Some(1500), (1, 10))
      put(t, Some(1600), (1, 11), (60, 600))
      put(t, Some(2600), (2, 20)) // after the clock less the lag
      val second = clocked.latestOffset(first, limit)
      second shouldBe ChangeOffset(ChangePosition(2500, None))
      val batch = clocked.getBatch(Some(SerializedOffset(first.json)), second.asInstanceOf[ChangeOffset])
      batch.isStreaming shouldBe true
      rowsOf(batch) shouldBe Seq((1, 11, "upsert"), (60, 600, "upsert"))
      batch.queryExecution.analyzed.toString should include("cell time range [1000, 2500) ms")

      // Nothing new: the offset stays, and Spark runs no batch.
      clocked.latestOffset(second, limit) shouldBe second
      now = 4000
      sql(s"DELETE FROM $t WHERE k = 60") // at the real clock, far after 4000: not yet
      put(t, Some(2000), (3, 30)) // late: timestamped before the last batch's end
      val third = clocked.latestOffset(SerializedOffset(second.json), limit)
      third shouldBe ChangeOffset(ChangePosition(3500, None))
      rowsOf(clocked.getBatch(Some(second.asInstanceOf[ChangeOffset]), third.asInstanceOf[ChangeOffset])) shouldBe
        Seq((2, 20, "upsert"))
      now = System.currentTimeMillis() + 1000
      val fourth = clocked.latestOffset(third, limit)
      rowsOf(clocked.getBatch(Some(third.asInstanceOf[ChangeOffset]), fourth.asInstanceOf[ChangeOffset])) shouldBe
        Seq((60, null, "delete"))
    }

    it("keeps each batch to maxRowsPerTrigger rows and resumes inside a millisecond") {
      val t = table()
      put(t, Some(1500), (1 to 7).map(k => (k, k)): _*)
      val source = new HBaseChangeSource(
        spark.sqlContext,
        ChangeOptions.read(spark.sqlContext, tableDef(t), cluster, 0L, "test"),
        ChangePosition(1000, None),
        lagMillis = 0,
        maxRows = Some(3),
        clock = () => 2000L
      )
      val offsets = Iterator.iterate(source.latestOffset(null, source.getDefaultReadLimit)) { o =>
        source.latestOffset(SerializedOffset(o.json), source.getDefaultReadLimit)
      }.sliding(2).takeWhile { case Seq(a, b) => a != b }.map { case Seq(a, b) => (a, b) }.toList
      val batches = offsets.map { case (a, b) =>
        rowsOf(source.getBatch(Some(SerializedOffset(a.json)), ChangeOffset(ChangePosition.fromJson(b.json, "test"))))
      }
      batches.map(_.map(_._1)) shouldBe Seq(Seq(1, 2, 3), Seq(4, 5, 6), Seq(7))
      offsets(1)._2.json should include(""""timestamp":1500,"key":""")
    }

    it("gives clear errors for bad options") {
      val t = table()
      def start(options: (String, String)*) =
        the[HBaseSQLException] thrownBy spark.readStream.format("hbase").options(options.toMap).load()
      start("table" -> "no_such_table").getMessage should include("HBase table 'no_such_table' does not exist")
      start("table" -> t, "startingTimestamp" -> "2999-01-01 00:00:00").getMessage should include(
        s"Stream of changes of HBase table '$t': option startingTimestamp 2999-01-01"
      )
      start("table" -> t, "maxRowsPerTrigger" -> "0").getMessage shouldBe
        s"Stream of changes of HBase table '$t': option maxRowsPerTrigger '0' is not a positive whole number"
    }
  }

  describe("a streaming query") {
    it("delivers every row written by us and by a plain HBase client once, and nothing twice across a restart") {
      val t = table()
      val checkpoint = Files.createTempDirectory("changes-checkpoint").toString
      // Each batch's rows by batch id: a batch run again after the restart replaces its first run.
      val delivered = new ConcurrentHashMap[Long, Seq[Row]]()
      val record: (DataFrame, Long) => Unit = (batch, id) =>
        delivered.put(id, batch.selectExpr("k", "v", "_change_type", "unix_millis(_commit_timestamp)").collect().toSeq)
      def run() = spark.readStream.format("hbase").option("table", t).load()
        .writeStream.option("checkpointLocation", checkpoint).trigger(Trigger.ProcessingTime(200))
        .foreachBatch(record).start()
      withConf(HBaseSQLConf.ChangesLag.key -> "300") {
        var query = run()
        val writing = new AtomicBoolean(true)
        val written = new java.util.concurrent.atomic.AtomicInteger(0)
        val writer = new Thread(() => {
          var i = 0
          while (writing.get()) {
            i += 1
            if (i % 2 == 0) put(t, None, (i, i), (i + 1000, i)) else sql(s"INSERT INTO $t VALUES ($i, 's', $i)")
            if (i % 5 == 0) sql(s"DELETE FROM $t WHERE k = ${i - 3}")
            if (i % 7 == 0) sql(s"UPDATE $t SET v = -v WHERE k = ${i - 1}")
            written.set(i)
          }
        })
        // Batches of the query that ran, and writes made, by each step: what the steps wait for.
        def batchesWithRows = delivered.asScala.count(_._2.nonEmpty)
        writer.start()
        try {
          Waits.until("two batches delivered rows before the stop")(batchesWithRows >= 2)
          query.stop()
          val whileDown = written.get()
          Waits.until("writes made while the query was down")(written.get() >= whileDown + 10)
          query = run()
          val before = batchesWithRows
          val wroteBefore = written.get()
          Waits.until("two more batches delivered rows after the restart") {
            batchesWithRows >= before + 2 && written.get() >= wroteBefore + 10
          }
        } finally {
          writing.set(false)
          writer.join()
        }
        val last = spark.table(t).selectExpr("k", "v").collect().map(r => r.getInt(0) -> r.getInt(1)).toMap
        try eventually(20) {
            val batches = delivered.asScala.toSeq.sortBy(_._1).map(_._2)
            // Each row's last delivery is its state now: every write was delivered.
            val latest = batches.flatten.groupBy(_.getInt(0)).map { case (k, rs) =>
              k -> rs.maxBy(_.getLong(3))
            }
            latest.collect { case (k, r) if r.getString(2) == "upsert" => k -> r.getInt(1) } shouldBe last
            latest.keySet should contain allElementsOf last.keySet
          }
        finally query.stop()
        // Each trigger's look for new writes is in the query's progress, with what it cost HBase.
        query.recentProgress.flatMap(_.sources.map(_.metrics.asScala)).filter(_.nonEmpty).last.keySet shouldBe
          Set("lookedFromMillis", "lookedUntilMillis", "lookRowsScanned", "lookBlockBytesScanned")
        val all = delivered.asScala.values.flatten.toSeq
        // No write is delivered twice: a row's deliveries have different latest-write times.
        all.map(r => (r.getInt(0), r.getLong(3))).distinct.size shouldBe all.size
        all.count(_.getString(2) == "delete") should be > 0
      }
    }
  }
}
