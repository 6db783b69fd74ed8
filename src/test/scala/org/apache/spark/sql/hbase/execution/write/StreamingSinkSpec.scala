// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import java.nio.file.{Files, Path}

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.{Encoders, Row}
import org.apache.spark.sql.execution.datasources.v2.WriteToDataSourceV2Exec
import org.apache.spark.sql.execution.streaming.runtime.{MemoryStream, StreamingQueryWrapper}
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.execution.write.{RowsWrittenMetric, SinkCommits}
import org.apache.spark.sql.streaming.StreamingQuery
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * The streaming sink, `writeStream.format("hbase")` and `toTable("hbase.t")`: each batch's rows
 * written by key through the INSERT write path, each batch once however often Spark replays it,
 * and clear errors for what it cannot do. Killed drivers and region servers: tests/test_streaming_sink.py.
 */
class StreamingSinkSpec extends HBaseSuite {
  private implicit val readings: org.apache.spark.sql.Encoder[(Int, String)] =
    Encoders.tuple(Encoders.scalaInt, Encoders.STRING)

  private def readingsTable(): String = {
    val t = uniqueName("stream")
    sql(s"CREATE TABLE $t (id INT, v STRING, n INT, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[v=f.v, n=f.n])")
    t
  }

  private def checkpoint(): Path = Files.createTempDirectory("sink-checkpoint")

  private def rows(t: String): Seq[(Int, String, Any)] =
    sql(s"SELECT id, v, n FROM $t ORDER BY id").collect().toSeq.map(r => (r.getInt(0), r.getString(1), r.get(2)))

  /** Rows (id, v) into `t` through `route`; the stream's columns are matched to the table's by name. */
  private def start(
      input: MemoryStream[(Int, String)],
      t: String,
      dir: Path,
      route: String = "format",
      mode: String = "append"
  ): StreamingQuery = {
    val writer = input.toDF().toDF("id", "v").writeStream.option("checkpointLocation", dir.toString).outputMode(mode)
    if (route == "format") writer.format("hbase").option("table", t).start() else writer.toTable(s"hbase.$t")
  }

  private def failure(body: => Any): String = intercept[Exception](body) match {
    case e: org.apache.spark.sql.streaming.StreamingQueryException => e.cause.getMessage
    case e => e.getMessage
  }

  describe("a stream into an HBase table") {
    for (route <- Seq("format", "toTable"); mode <- Seq("append", "update")) {
      it(s"writes each batch's rows by key, the other columns NULL ($route, $mode mode)") {
        val t = readingsTable()
        val input = MemoryStream[(Int, String)](spark)
        val query = start(input, t, checkpoint(), route, mode)
        try {
          input.addData((1, "a"), (2, "b"))
          query.processAllAvailable()
          input.addData((2, "B"), (3, "c"))
          query.processAllAvailable()
          rows(t) shouldBe Seq((1, "a", null), (2, "B", null), (3, "c", null))
          val sink = query.lastProgress.sink
          val written = if (route == "format") sink.metrics.get("numOutputRows").toLong else sink.numOutputRows
          written shouldBe 2L
          if (route == "format") {
            val store = spark.asInstanceOf[org.apache.spark.sql.classic.SparkSession].sharedState.statusStore
            eventually(10) {
              val writes = store.executionsList()
                .filter(e =>
                  e.physicalPlanDescription.contains("Execute WriteToHBase") && e.physicalPlanDescription.contains(t)
                )
              val rowsWritten = writes.flatMap { e =>
                val ids = e.metrics.filter(_.name == "rows written to HBase").map(_.accumulatorId).toSet
                store.executionMetrics(e.executionId).filter { case (id, _) => ids(id) }.values
              }
              withClue(s"the SQL tab's metric of the batch's write, in ${writes.size} writes: ")(
                rowsWritten should contain("2")
              )
            }
          }
          if (route == "toTable") {
            val plan = query.asInstanceOf[StreamingQueryWrapper].streamingQuery.lastExecution.executedPlan
            val sqlTab = plan.collectFirst { case w: WriteToDataSourceV2Exec => w.metrics }.get
            withClue("the SQL tab's metric of the batch's write: ")(sqlTab(RowsWrittenMetric.Name).value shouldBe 2L)
          }
        } finally query.stop()
      }
    }

    it("skips a batch HBase has as committed when Spark replays it, so it is written once") {
      val t = readingsTable()
      val dir = checkpoint()
      val input = MemoryStream[(Int, String)](spark)
      val first = start(input, t, dir)
      try {
        input.addData((1, "a"))
        first.processAllAvailable()
        input.addData((2, "b"))
        first.processAllAvailable()
      } finally first.stop()
      // As if the driver died after the sink committed batch 1 but before Spark's commit log did.
      Files.delete(dir.resolve("commits").resolve("1"))
      Files.deleteIfExists(dir.resolve("commits").resolve(".1.crc"))
      sql(s"INSERT INTO $t VALUES (2, 'changed since', 7)")
      val again = start(input, t, dir)
      try {
        again.processAllAvailable()
        withClue("batch 1 was not written again: ")(rows(t) shouldBe Seq((1, "a", null), (2, "changed since", 7)))
        again.lastProgress.sink.metrics.get("numOutputRows") shouldBe "0"
        input.addData((3, "c"))
        again.processAllAvailable()
        rows(t).map(_._1) shouldBe Seq(1, 2, 3)
      } finally again.stop()
    }

    it("records the committed batch next to the catalog, by the query's id and the table") {
      val t = readingsTable()
      val input = MemoryStream[(Int, String)](spark)
      val query = start(input, t, checkpoint(), "toTable")
      try {
        input.addData((1, "a"))
        query.processAllAvailable()
        input.addData((2, "b"))
        query.processAllAvailable()
        val commits = new SinkCommits(cluster, TableDefinitionStores.metaTable(spark))
        commits.last(query.id.toString, t).map(_._2) shouldBe Some(1L)
        commits.last(query.id.toString, "other").map(_._2) shouldBe None
        withClue("the catalog lists tables only: ")(TableDefinitionStores.of(spark).entries().map(_.name) should
          contain(t))
      } finally query.stop()
    }

    it("writes a LAYOUT PACKED table in its packed cells, as INSERT does") {
      val t = uniqueName("packed")
      sql(
        s"CREATE TABLE $t (id INT, v STRING, n INT, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[v=f.v, n=f.n]) LAYOUT PACKED"
      )
      val input = MemoryStream[(Int, String)](spark)
      val query = input.toDF().selectExpr("_1 AS id", "_2 AS v", "_1 * 10 AS n").writeStream.outputMode("update")
        .option("checkpointLocation", checkpoint().toString).toTable(s"hbase.$t")
      try {
        input.addData((1, "a"), (2, "b"))
        query.processAllAvailable()
        input.addData((1, "A"))
        query.processAllAvailable()
      } finally query.stop()
      rows(t) shouldBe Seq((1, "A", 10), (2, "b", 20))
      val hbaseTable = TableDefinitionStores.of(spark).get(t).get.hbaseTable
      withClue("one cell per family per row (v and n in one): ")(
        withTable(s"${hbaseTable.namespace}:${hbaseTable.name}") { table =>
          val scanner = table.getScanner(new org.apache.hadoop.hbase.client.Scan())
          try scanner.iterator().asScala.map(_.rawCells().length).toSeq shouldBe Seq(1, 1)
          finally scanner.close()
        }
      )
    }

    it("keeps a range index trusted, and answers with and without it the same") {
      val t = uniqueName("indexed")
      sql(s"""CREATE TABLE $t (id INT, v STRING, n INT, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[v=f.v, n=f.n])
             |SPLIT ON ((250), (500), (750))""".stripMargin)
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CONCAT('v', id), CAST(id AS INT) FROM range(1000)")
      withConf(HBaseSQLConf.IndexMarkLease.key -> "1500", HBaseSQLConf.IndexClockSkew.key -> "0") {
        sql(s"CREATE INDEX ${t}_n ON $t (n) OPTIONS (chunkRows = 50)")
        val stream = MemoryStream[(Int, String)](spark)
        val query = stream.toDF().selectExpr("_1 AS id", "_2 AS v", "_1 * 3 AS n").writeStream
          .option("checkpointLocation", checkpoint().toString).format("hbase").option("table", t).start()
        try {
          stream.addData((10 to 30).map(i => (i, s"s$i")): _*)
          query.processAllAvailable()
          stream.addData((990 to 1010).map(i => (i, s"s$i")): _*)
          query.processAllAvailable()
        } finally query.stop()
        val Seq(shown) = sql(s"SHOW INDEXES ON $t").collect().toSeq
        withClue("every chunk still trusted: ")(shown.getInt(4) shouldBe shown.getInt(5))
        def same(query: String): Seq[Row] = {
          val used = sql(query).collect().toSeq.map(_.toString).sorted
          val unused =
            withConf(HBaseSQLConf.IndexEnabled.key -> "false")(sql(query).collect().toSeq.map(_.toString).sorted)
          used shouldBe unused
          sql(query).collect().toSeq
        }
        same(s"SELECT id FROM $t WHERE n BETWEEN 60 AND 90").map(_.getInt(0)).sorted shouldBe (20 to 30) ++ (60 to 90)
        same(s"SELECT id FROM $t WHERE n >= 3000").map(_.getInt(0)).sorted shouldBe (1000 to 1010)
        same(s"SELECT id FROM $t WHERE n = 45").map(_.getInt(0)).sorted shouldBe Seq(15, 45)
        same(s"SELECT id FROM $t WHERE n = 15") shouldBe empty
      }
    }
  }

  describe("what the sink refuses") {
    it("names an unknown table, complete mode, partitioning and a time-travel option") {
      val input = MemoryStream[(Int, String)](spark)
      val df = input.toDF().toDF("id", "v")
      failure(df.writeStream.format("hbase").option("table", "no_such_table")
        .option("checkpointLocation", checkpoint().toString).start()) should include(
        "HBase table 'no_such_table' does not exist"
      )
      failure(df.writeStream.format("hbase").option("checkpointLocation", checkpoint().toString).start()) should
        include("needs the table")
      val t = readingsTable()
      val counts = df.groupBy("id").count().selectExpr("id", "CAST(count AS STRING) AS v")
      failure(counts.writeStream.format("hbase").option("table", t).outputMode("complete")
        .option("checkpointLocation", checkpoint().toString).start()) should
        include("output mode 'complete' is not supported")
      failure(df.writeStream.format("hbase").option("table", t).partitionBy("v")
        .option("checkpointLocation", checkpoint().toString).start()) should include("have no partitions")
      val complete = counts.writeStream.outputMode("complete").option("checkpointLocation", checkpoint().toString)
        .toTable(s"hbase.$t")
      try {
        input.addData((1, "a"))
        failure(complete.processAllAvailable()) should include("output mode 'complete' is not supported")
      } finally complete.stop()
    }

    it("names the batch, the table and the column of a bad row, and of a column the table lacks") {
      val t = readingsTable()
      val input = MemoryStream[(Int, String)](spark)
      val keyless = input.toDF().selectExpr("IF(_1 = 2, NULL, _1) AS id", "_2 AS v").writeStream
        .option("checkpointLocation", checkpoint().toString).format("hbase").option("table", t).start()
      try {
        input.addData((1, "a"))
        keyless.processAllAvailable()
        input.addData((2, "b"))
        val message = failure(keyless.processAllAvailable())
        message should include(s"Streaming batch 1 into HBase table '$t'")
        message should include("'id'")
      } finally keyless.stop()
      val extra = input.toDF().selectExpr("_1 AS id", "_2 AS nope").writeStream
        .option("checkpointLocation", checkpoint().toString).format("hbase").option("table", t).start()
      try {
        input.addData((3, "c"))
        failure(extra.processAllAvailable()) should include("Column 'nope' does not exist in table")
      } finally extra.stop()
    }

    it("refuses a checkpoint whose batches never reached the table (a batch id gap)") {
      val t = readingsTable()
      val dir = checkpoint()
      val input = MemoryStream[(Int, String)](spark)
      val first = start(input, t, dir)
      try {
        input.addData((1, "a"))
        first.processAllAvailable()
        input.addData((2, "b"))
        first.processAllAvailable()
      } finally first.stop()
      val other = readingsTable()
      val moved = start(input, other, dir)
      try {
        input.addData((3, "c"))
        val message = failure(moved.processAllAvailable())
        message should include(s"HBase table '$other': the checkpoint asks for batch 2, but HBase has no batch")
        message should include("new checkpoint location")
        rows(other) shouldBe empty
      } finally moved.stop()
    }

    it("forgets a dropped table's commit records: the query's next batch into a new table of that name is refused") {
      val t = readingsTable()
      val dir = checkpoint()
      val input = MemoryStream[(Int, String)](spark)
      val first = start(input, t, dir)
      val queryId =
        try {
          input.addData((1, "a"))
          first.processAllAvailable()
          first.id.toString
        } finally first.stop()
      val commits = new SinkCommits(cluster, TableDefinitionStores.metaTable(spark))
      commits.last(queryId, t).map(_._2) shouldBe Some(0L)
      sql(s"DROP TABLE $t PURGE")
      withClue("the record went with the table: ")(commits.last(queryId, t) shouldBe None)
      sql(s"CREATE TABLE $t (id INT, v STRING, n INT, PRIMARY KEY (id)) MAPPED BY ($t, COLS=[v=f.v, n=f.n])")
      val again = start(input, t, dir)
      try {
        input.addData((2, "b"))
        failure(again.processAllAvailable()) should include(
          s"HBase table '$t': the checkpoint asks for batch 1, but HBase has no batch"
        )
        rows(t) shouldBe empty
      } finally again.stop()
    }
  }
}
