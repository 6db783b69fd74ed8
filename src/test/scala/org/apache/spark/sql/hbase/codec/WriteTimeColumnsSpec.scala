// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.nio.file.Files
import java.sql.Timestamp

import scala.util.Random

import org.apache.hadoop.hbase.client.{Delete, Put}

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, execution, metadata}
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

/** Columns that hold the time a cell was written: WRITETIME(family.qualifier) in COLS. */
class WriteTimeColumnsSpec extends HBaseSuite {

  /**
   * v and w share family f, g is alone in h; v_at and w_ms are their write times. A cell a column,
   * each with its own write time (a packed table's are its families': PackedTablesSpec).
   */
  private def table(): String = {
    val t = uniqueName("wt")
    sql(s"""CREATE TABLE $t (k INT, v INT, w STRING, g INT, v_at TIMESTAMP, w_ms BIGINT, PRIMARY KEY (k))
           |MAPPED BY ($t, COLS=[v=f.v, w=f.w, g=h.g, v_at=WRITETIME(f.v), w_ms=WRITETIME(f.w)]) LAYOUT CELLS
           |FAMILIES (f (VERSIONS = 3), h (VERSIONS = 3)) SPLIT ON ((40))""".stripMargin)
    t
  }

  private def codec(t: String) = new RowCodec(metadata.TableDefinitionStores.of(spark).get(t).get)

  /** Writes `column`'s cell of row `k` at `millis` as our writers encode it; NULL deletes its versions up to then. */
  private def writeAt(t: String, millis: Long, cells: (Int, String, Any)*): Unit = {
    val rowCodec = codec(t)
    val table = rowCodec.table
    withTable(t) { hbase =>
      cells.foreach { case (k, name, value) =>
        val column = table.column(name)
        val row = new GenericInternalRow(table.columns.size)
        row.update(table.columns.indexOf(table.column("k")), k)
        val index = rowCodec.cellIndex(column)
        val key = rowCodec.rowKey(row)
        if (value == null)
          hbase.delete(new Delete(key).addColumns(rowCodec.families(index), rowCodec.qualifiers(index), millis))
        else {
          row.update(
            table.columns.indexOf(column),
            value match {
              case s: String => UTF8String.fromString(s)
              case other => other
            }
          )
          hbase.put(new Put(key).addColumn(
            rowCodec.families(index),
            rowCodec.qualifiers(index),
            millis,
            rowCodec.cellValues(row)(index)
          ))
        }
      }
    }
  }

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  private def ts(millis: Long) = new Timestamp(millis)

  describe("a write-time column") {
    it("reads its cell's timestamp, as a TIMESTAMP or as milliseconds, and NULL where the cell is missing") {
      val t = table()
      writeAt(t, 1000, (1, "v", 10), (2, "v", 20), (50, "g", 7))
      writeAt(t, 2500, (1, "w", "a"))
      writeAt(t, 4000, (2, "v", 21))
      rows(s"SELECT k, v, v_at, w, w_ms, g FROM $t ORDER BY k") shouldBe Seq(
        Row(1, 10, ts(1000), "a", 2500L, null),
        Row(2, 21, ts(4000), null, null, null),
        Row(50, null, null, null, null, 7)
      )
      rows(s"SELECT v_at FROM $t WHERE k = 2") shouldBe Seq(Row(ts(4000)))
      rows(s"SELECT k FROM $t WHERE w_ms = 2500") shouldBe Seq(Row(1))
      // A write time follows the version read as of a time.
      rows(s"SELECT v, v_at FROM $t TIMESTAMP AS OF timestamp_millis(3000) WHERE k = 2") shouldBe Seq(Row(20, ts(1000)))
    }

    it("changes when the cell is written again, and only then") {
      val t = table()
      sql(s"INSERT INTO $t VALUES (1, 10, 'a', 1), (2, 20, 'b', 2)")
      val before = rows(s"SELECT k, v_at, w_ms FROM $t ORDER BY k")
      Waits.clockPast(System.currentTimeMillis())
      val start = System.currentTimeMillis()
      sql(s"UPDATE $t SET v = v + 1 WHERE k = 1")
      val end = System.currentTimeMillis()
      val after = rows(s"SELECT k, v_at, w_ms FROM $t ORDER BY k")
      after(1) shouldBe before(1)
      after.head.getLong(2) shouldBe before.head.getLong(2)
      after.head.getTimestamp(1).getTime should (be >= start and be <= end)
    }

    it("is left to HBase by every write: INSERT, the DataFrame writer, LOAD DATA and UPDATE") {
      val t = table()
      sql(s"INSERT INTO $t VALUES (1, 10, 'a', 1)")
      sql(s"INSERT INTO $t (k, w) VALUES (2, 'b')")
      spark.createDataFrame(java.util.List.of(Row(3, 30, "c", 3)), spark.table(t).drop("v_at", "w_ms").schema)
        .write.format("hbase").option("table", t).mode("append").save()
      spark.createDataFrame(java.util.List.of(Row(4, 40, "d", 4, ts(5), 5L)), spark.table(t).schema)
        .write.format("hbase").option("table", t).option("bulkload", "true").mode("append").save()
      val file = Files.createTempFile("wt", ".csv")
      Files.writeString(file, "5,50,e,5\n")
      rows(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t") shouldBe Seq(Row(1L, 0L))
      val written = rows(s"SELECT k, v, w, g, v_at IS NOT NULL, w_ms > 1000 FROM $t ORDER BY k")
      written shouldBe Seq(
        Row(1, 10, "a", 1, true, true),
        Row(2, null, "b", null, false, true),
        Row(3, 30, "c", 3, true, true),
        Row(4, 40, "d", 4, true, true),
        Row(5, 50, "e", 5, true, true)
      )

      intercept[HBaseSQLException](sql(s"INSERT INTO $t (k, v_at) VALUES (9, now())")).getMessage shouldBe
        s"INSERT INTO $t (v_at): 'v_at' is the write time of cell f.v, which HBase sets when the cell is written; leave it out"
      intercept[HBaseSQLException](sql(s"UPDATE $t SET w_ms = 0 WHERE k = 1")).getMessage shouldBe
        s"UPDATE $t SET w_ms: 'w_ms' is the write time of cell f.w, which HBase sets when the cell is written; it is read-only"
      Files.writeString(file, "6,60,f,6,2026-01-01 00:00:00,7\n")
      intercept[HBaseSQLException](sql(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t")).getMessage should include(
        "6 fields, more than the table's 4 columns (write times, set by HBase, are not loaded)"
      )
    }

    it("is described, added and dropped, and its cell cannot be dropped or indexed under it") {
      val t = table()
      sql(s"ALTER TABLE $t ADD COLUMN g_at TIMESTAMP MAPPED BY (g_at = WRITETIME(h.g))")
      val described = rows(s"DESCRIBE TABLE $t").map(r => r.getString(0) -> r.getString(2)).toMap
      described("v_at") shouldBe "write time of cell f.v (read-only)"
      described("g_at") shouldBe "write time of cell h.g (read-only)"
      writeAt(t, 3000, (1, "g", 9))
      rows(s"SELECT g, g_at FROM $t") shouldBe Seq(Row(9, ts(3000)))
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t DROP COLUMN g")).getMessage shouldBe
        s"ALTER TABLE $t DROP COLUMN g: column 'g_at' is the write time of its cell h.g; DROP COLUMN g_at first"
      intercept[HBaseSQLException](sql(s"CREATE INDEX ${t}_i ON TABLE $t (v_at)")).getMessage should endWith(
        "'v_at' is the write time of cell f.v; an index holds values"
      )
      sql(s"ALTER TABLE $t DROP COLUMN g_at")
      sql(s"ALTER TABLE $t DROP COLUMN g")
      rows(s"SELECT * FROM $t") shouldBe Nil
    }

    it("is refused at CREATE TABLE and ALTER TABLE when it cannot hold its cell's write time") {
      def create(types: String, cols: String) = intercept[HBaseSQLException](
        sql(s"CREATE TABLE bad_wt (k INT, v INT, $types, PRIMARY KEY (k)) MAPPED BY (bad_wt, COLS=[v=f.v, $cols])")
      ).getMessage
      create("t STRING", "t=WRITETIME(f.v)") shouldBe
        "CREATE TABLE bad_wt: column 't': " +
        "WRITETIME(f.v) is a TIMESTAMP, or a BIGINT of milliseconds since the epoch, not STRING"
      create("t TIMESTAMP", "t=WRITETIME(f.x)") shouldBe
        "CREATE TABLE bad_wt: column 't': WRITETIME(f.x) needs the cell f.x mapped to a column of table 'bad_wt'"
      create("t TIMESTAMP NOT NULL", "t=WRITETIME(f.v)") shouldBe
        "CREATE TABLE bad_wt: write-time column 't' cannot be NOT NULL: a row without the cell f.v has no write time"
      create("t TIMESTAMP, u BIGINT", "t=WRITETIME(f.v), u=WRITETIME(f.v)") shouldBe
        "CREATE TABLE bad_wt: columns t, u share WRITETIME(f.v) in COLS"
      create("t TIMESTAMP", "k=WRITETIME(f.v)") shouldBe
        "CREATE TABLE bad_wt: key column 'k' is part of the row key and cannot be mapped to 'WRITETIME(f.v)' in COLS"
      hbaseTableExists("bad_wt") shouldBe false
      val t = table()
      intercept[HBaseSQLException](
        sql(s"ALTER TABLE $t ADD COLUMN x BIGINT MAPPED BY (x = WRITETIME(f.v))")
      ).getMessage shouldBe
        s"ALTER TABLE $t ADD COLUMN x: the write time of f.v is already column 'v_at'"
    }
  }

  describe("a lower bound on a write time") {
    it("reads the cell's family only from that time on when the query needs no other cell of it, as EXPLAIN shows") {
      val t = table()
      writeAt(t, 1000, (1 to 100).map(k => (k, "v", k)): _*)
      writeAt(t, 9000, (81 to 100).map(k => (k, "v", -k)): _*)
      writeAt(t, 9000, (101 to 120).map(k => (k, "v", k)): _*)
      val query = s"SELECT k FROM $t WHERE v_at >= timestamp_millis(5000) ORDER BY k"
      val narrowed = sql(query)
      narrowed.collect().toSeq shouldBe (81 to 120).map(Row(_))
      execution.ScanMetrics.of(narrowed)("rowsRead") shouldBe 40
      narrowed.queryExecution.executedPlan.toString should
        include("family f written since 1970-01-01T00:00:05Z (5000 ms)")
      withConf(HBaseSQLConf.Pushdown.key -> "false") {
        val whole = sql(query)
        whole.collect().toSeq shouldBe (81 to 120).map(Row(_))
        execution.ScanMetrics.of(whole)("rowsRead") shouldBe 120
      }
      // Another cell of the family, or a bound from above, leaves the family whole.
      for (
        other <- Seq(
          s"SELECT k, w FROM $t WHERE v_at >= timestamp_millis(5000)",
          s"SELECT k FROM $t WHERE v_at < timestamp_millis(5000)"
        )
      )
        sql(other).queryExecution.executedPlan.toString should not include "written since"
    }
  }

  describe("random queries over write times") {
    it("return exactly the rows the cells' versions and deletes give, with pushdown on and off") {
      val t = table()
      val random = new Random(31)
      val columns = Seq("v", "w", "g")
      def valueOf(column: String): Any = column match {
        case "w" => s"s${random.nextInt(5)}"
        case _ => random.nextInt(10)
      }
      // Per row and column: up to three versions at distinct whole seconds, and maybe a delete between them.
      val history = for (k <- 0 until 80; column <- columns if random.nextInt(4) > 0) yield {
        val times = random.shuffle((1 to 9).toList).take(1 + random.nextInt(3)).map(_ * 1000L)
        val puts = times.map(time => time -> valueOf(column))
        val delete = if (random.nextInt(4) == 0) Some(500L + 1000L * random.nextInt(9)) else None
        (k, column) -> (puts, delete)
      }
      for (((k, column), (puts, delete)) <- history) {
        puts.foreach { case (time, value) => writeAt(t, time, (k, column, value)) }
        delete.foreach(time => writeAt(t, time, (k, column, null)))
      }

      /** The newest version of each cell read as of `asOf`; a delete masks what is older than it, whenever it came. */
      def expectedRows(asOf: Long): Map[Int, Map[String, (Long, Any)]] =
        history.flatMap { case ((k, column), (puts, delete)) =>
          puts.filter { case (time, _) => time <= asOf && delete.forall(time > _) }.maxByOption(_._1).map(k ->
            (column, _))
        }.groupBy(_._1).map { case (k, cells) => k -> cells.map(_._2).toMap }

      val clauses: Seq[(String, Map[String, (Long, Any)] => Boolean)] = {
        def at(c: Map[String, (Long, Any)], column: String) = c.get(column).map(_._1)
        def value(c: Map[String, (Long, Any)], column: String) = c.get(column).map(_._2)
        val (a, b) = (1000L * (1 + random.nextInt(8)), 1000L * (1 + random.nextInt(8)))
        Seq(
          s"v_at >= timestamp_millis($a)" -> (c => at(c, "v").exists(_ >= a)),
          s"v_at > timestamp_millis(${a - 1})" -> (c => at(c, "v").exists(_ > a - 1)),
          s"v_at = timestamp_millis($a)" -> (c => at(c, "v").contains(a)),
          s"v_at < timestamp_millis($a)" -> (c => at(c, "v").exists(_ < a)),
          s"w_ms >= $a AND w_ms < ${a + 3000}" -> (c => at(c, "w").exists(x => x >= a && x < a + 3000)),
          s"w_ms BETWEEN $a AND $b AND v > 3" ->
            (c => at(c, "w").exists(x => x >= a && x <= b) && value(c, "v").exists(_.asInstanceOf[Int] > 3)),
          s"v_at >= timestamp_millis($a) AND w IS NULL" -> (c => at(c, "v").exists(_ >= a) && !c.contains("w")),
          s"v_at >= timestamp_millis($a) OR g > 5" ->
            (c => at(c, "v").exists(_ >= a) || value(c, "g").exists(_.asInstanceOf[Int] > 5)),
          s"timestamp_millis($b) <= v_at AND k < 40" -> (c => at(c, "v").exists(_ >= b))
        )
      }
      for (round <- 1 to 24) {
        val (clause, matches) = clauses(random.nextInt(clauses.size))
        val asOf = if (random.nextBoolean()) None else Some(1000L * (1 + random.nextInt(9)) + random.nextInt(2) * 500L)
        val keyBound = if (clause.contains("k < 40")) 40 else Int.MaxValue
        val expected = expectedRows(asOf.getOrElse(Long.MaxValue)).toSeq.filter { case (k, cells) =>
          k < keyBound && matches(cells)
        }
          .map { case (k, cells) => Row(k, cells.get("v").map(_._2).orNull, cells.get("v").map(c => ts(c._1)).orNull) }
          .sortBy(_.getInt(0))
        val from = asOf.fold(t)(millis => s"$t TIMESTAMP AS OF timestamp_millis($millis)")
        val query = s"SELECT k, v, v_at FROM $from WHERE $clause ORDER BY k"
        for (pushdown <- Seq(true, false)) withConf(HBaseSQLConf.Pushdown.key -> pushdown.toString) {
          withClue(s"round $round, pushdown $pushdown: $query") {
            rows(query) shouldBe expected
          }
        }
        val keysOnly = s"SELECT k FROM $from WHERE $clause ORDER BY k"
        withClue(s"round $round: $keysOnly") {
          rows(keysOnly) shouldBe expected.map(r => Row(r.getInt(0)))
        }
      }
    }
  }
}
