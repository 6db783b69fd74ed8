// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Delete, Put, Scan}
import org.apache.hadoop.hbase.exceptions.DeserializationException
import org.apache.hadoop.hbase.filter.{Filter, FilterBase}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.DataFrame
import org.apache.spark.sql.hbase.{HBaseSuite, planner}
import org.apache.spark.sql.hbase.metadata.{
  HBaseColumn, HBaseTableDef, HBaseTableName, TableDefinitionStores, TableFormat
}
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, RowRange}
import org.apache.spark.sql.hbase.execution.HBaseTableScan
import org.apache.spark.sql.hbase.facts.{FactsCache, HBaseRegions, ServerFilterSupport}
import org.apache.spark.sql.hbase.planner.{ColumnRange, KeyBoxPlan, KeyBoxes}
import org.apache.spark.sql.hbase.server.{CellType, KeyBox, Operand, RowPredicate, ServerJar, SkipScanFilter}
import org.apache.spark.sql.types.IntegerType

/** A filter the region servers do not have: only the tests' class path holds it. */
class ClientOnlyFilter extends FilterBase

object ClientOnlyFilter {
  def parseFrom(bytes: Array[Byte]): Filter = new ClientOnlyFilter
}

/** The server jar's filter in a real region server, driven through the plain HBase client. */
class SkipScanFilterSpec extends HBaseSuite {
  private val codec = new BinaryKeyCodec(Seq(IntegerType, IntegerType))
  private val f = Bytes.toBytes("f")
  private val v = Bytes.toBytes("v")
  private val w = Bytes.toBytes("w")
  private def key(a: Int, b: Int) = codec.encode(Seq(a, b))
  private def keyOf(row: Array[Byte]) = codec.decode(row).toSeq.map(_.asInstanceOf[Int])

  /** 100 x 10 rows (a, b) with v = a * 10 + b and w = b; w is missing where b = 9. */
  private lazy val table: String = {
    val t = uniqueName("skipscan")
    createHBaseTable(t, Seq("f"))
    withTable(t)(_.put((for (a <- 0 until 100; b <- 0 until 10) yield {
      val put = new Put(key(a, b)).addColumn(f, v, Bytes.toBytes(a * 10 + b))
      if (b != 9) put.addColumn(f, w, Bytes.toBytes(b)) else put
    }).asJava))
    withAdmin(_.flush(TableName.valueOf(t)))
    t
  }

  private def boxes(columns: Option[Seq[ColumnRange]]*): Array[KeyBox] =
    KeyBoxes.encode(
      KeyBoxPlan(columns.toIndexedSeq, 0, RowRange(Array.emptyByteArray, Array.emptyByteArray)),
      codec
    ).toArray

  private val cellV = Operand.cell(Bytes.toBytes("f"), Bytes.toBytes("v"), CellType.INT, 0, 0)
  private val cellW = Operand.cell(Bytes.toBytes("f"), Bytes.toBytes("w"), CellType.INT, 0, 0)
  private def comparable(i: Int) = BinaryKeyCodec.comparable(IntegerType, i)

  /** The keys a scan returns, and how many rows the region server looked at. */
  private def scan(t: String, filter: Filter): (Seq[Seq[Int]], Long) = withTable(t) { htable =>
    val scan = new Scan().setFilter(filter).setScanMetricsEnabled(true)
    val scanner = htable.getScanner(scan)
    try {
      val keys = scanner.iterator().asScala.map(r => keyOf(r.getRow)).toVector
      (keys, scanner.getScanMetrics.countOfRowsScanned.get())
    } finally scanner.close()
  }

  private def filter(keyBoxes: Array[KeyBox], operands: Array[Operand] = Array.empty, predicate: RowPredicate = null) =
    new SkipScanFilter(codec.sliceLayout, keyBoxes, operands, predicate, null, null)

  describe("the skip scan in a region server") {
    it("finds the rows of a later key column alone, seeking instead of reading every row") {
      val (keys, scanned) = scan(table, filter(boxes(None, Some(Seq(ColumnRange.point(3))))))
      keys shouldBe (0 until 100).map(a => Seq(a, 3))
      withClue("rows the region server looked at, out of 1,000: ")(scanned should be <= 300L)
      scan(table, filter(null))._2 shouldBe 1000L
    }

    it("combines a range on the first column with a list on the second, ending at the last range") {
      val (keys, scanned) = scan(
        table,
        filter(boxes(
          Some(Seq(
            ColumnRange.point(10),
            ColumnRange(Some(planner.Bound(20, true)), Some(planner.Bound(22, false)))
          )),
          Some(Seq(ColumnRange.point(1), ColumnRange.point(7)))
        ))
      )
      keys shouldBe Seq(Seq(10, 1), Seq(10, 7), Seq(20, 1), Seq(20, 7), Seq(21, 1), Seq(21, 7))
      scanned should be <= 12L
    }
  }

  describe("the row predicate in a region server") {
    it("keeps only the rows where it is TRUE, with SQL's NULLs for missing cells") {
      val vBelow25 = RowPredicate.compare("<", 0, comparable(25))
      scan(table, filter(null, Array(cellV), vBelow25))._1 shouldBe (0 until 25).map(i => Seq(i / 10, i % 10))
      // w is missing where b = 9: NOT (w = 8) is NULL there, so those rows stay out.
      val notEight = RowPredicate.not(RowPredicate.compare("=", 0, comparable(8)))
      val (keys, _) = scan(table, filter(boxes(Some(Seq(ColumnRange.point(0))), None), Array(cellW), notEight))
      keys shouldBe (0 until 8).map(b => Seq(0, b))
      val wIsNull = RowPredicate.isNull(0)
      scan(table, filter(boxes(Some(Seq(ColumnRange.point(5))), None), Array(cellW), wIsNull))._1 shouldBe
        Seq(Seq(5, 9))
    }

    it("reads key columns and cells together, with OR and IN") {
      // b IN (4, 40) OR (a >= 98 AND v <=> 985)
      val predicate = RowPredicate.or(
        RowPredicate.in(0, comparable(4), comparable(40)),
        RowPredicate.and(RowPredicate.compare(">=", 1, comparable(98)), RowPredicate.compare("<=>", 2, comparable(985)))
      )
      val (keys, _) = scan(table, filter(null, Array(Operand.key(1), Operand.key(0), cellV), predicate))
      keys shouldBe (for (a <- 0 until 100; b <- 0 until 10 if b == 4 || (a == 98 && b == 5)) yield Seq(a, b))
    }

    it("sees only the newest version of a cell, and not deleted cells") {
      val t = uniqueName("versions")
      createHBaseTable(t, Seq("f"))
      withTable(t) { htable =>
        htable.put(new Put(key(1, 1)).addColumn(f, v, 1L, Bytes.toBytes(1)))
        htable.put(new Put(key(1, 1)).addColumn(f, v, 2L, Bytes.toBytes(2)))
        htable.put(new Put(key(2, 2)).addColumn(f, v, Bytes.toBytes(1)).addColumn(f, w, Bytes.toBytes(0)))
        htable.delete(new Delete(key(2, 2)).addColumns(f, v))
      }
      def vIs(i: Int) = RowPredicate.compare("=", 0, comparable(i))
      scan(t, filter(null, Array(cellV), vIs(1)))._1 shouldBe empty
      scan(t, filter(null, Array(cellV), vIs(2)))._1 shouldBe Seq(Seq(1, 1))
      scan(t, filter(null, Array(cellV), RowPredicate.isNull(0)))._1 shouldBe Seq(Seq(2, 2))
    }
  }

  describe("the filter's bytes") {
    it("carry a wire version, and a region server refuses another version with a message that says so") {
      val original =
        filter(boxes(None, Some(Seq(ColumnRange.point(3)))), Array(cellV), RowPredicate.compare("<", 0, comparable(5)))
      val bytes = original.toByteArray
      Bytes.toInt(bytes, 0) shouldBe ServerJar.WIRE_VERSION
      SkipScanFilter.parseFrom(bytes).toByteArray shouldBe bytes
      val future = bytes.clone()
      Bytes.putInt(future, 0, ServerJar.WIRE_VERSION + 1)
      val error = intercept[DeserializationException](SkipScanFilter.parseFrom(future))
      error.getMessage should include(s"wire version ${ServerJar.WIRE_VERSION + 1}")
      intercept[DeserializationException](SkipScanFilter.parseFrom(bytes.take(bytes.length - 3)))
    }
  }

  describe("detecting the server jar") {
    it("succeeds for our filter, and names the class a region server lacks") {
      val name = HBaseTableName("default", table)
      ServerFilterSupport.probe(cluster, name, filter(Array.empty)) shouldBe None
      val missing = ServerFilterSupport.probe(cluster, name, new ClientOnlyFilter)
      missing shouldBe defined
      missing.get should include("ClientOnlyFilter")
    }

    it(
      "keeps each region server's answer under its name and start code; one that refused has only its regions read without the filter"
    ) {
      val t = uniqueName("probed")
      sql(
        s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((250), (500), (750))"
      )
      sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id % 10 AS INT) FROM range(0, 1000)")
      val hbaseTable = TableDefinitionStores.of(spark).get(t).get.hbaseTable
      val name = TableName.valueOf(hbaseTable.namespace, hbaseTable.name)
      // Region i on region server i % 3: the first region's server holds the last one too.
      val servers = withAdmin(_.getRegionServers.asScala.toSeq.sortBy(_.getServerName))
      servers should have size 3
      withAdmin { admin =>
        admin.getRegions(name).asScala.sortWith((a, b) => Bytes.compareTo(a.getStartKey, b.getStartKey) < 0)
          .zipWithIndex.foreach { case (r, i) => admin.move(r.getEncodedNameAsBytes, servers(i % 3)) }
      }
      val placed = (0 until 4).map(i => servers(i % 3).getServerName)
      eventually(60)(HBaseRegions.of(cluster, hbaseTable).map(_.serverName) shouldBe placed)
      FactsCache.forgetTable(cluster, hbaseTable)
      placed.foreach(s => FactsCache.forget(FactsCache.FilterVersion(cluster, s)))

      val query = s"SELECT k, v FROM $t WHERE v = 3"
      val expected = (0 until 1000).filter(_ % 10 == 3)
      def regionsWithFilter(df: DataFrame) = {
        df.collect().map(_.getInt(0)).sorted.toSeq shouldBe expected
        df.queryExecution.sparkPlan.collectFirst { case s: HBaseTableScan => s }.get.plan.regions
          .map(_.server.isDefined)
      }
      regionsWithFilter(sql(query)) shouldBe Seq(true, true, true, true)
      // Each region server was probed through a region of its own, and said so under its name as HBase gives it.
      placed.distinct.map(s => FactsCache.cached(FactsCache.FilterVersion(cluster, s), Long.MaxValue)) shouldBe
        Seq.fill(3)(Some(Right(ServerJar.WIRE_VERSION)))
      try {
        // The first region's server refused, as one without the jar does: the others' regions keep the filter.
        FactsCache.put(FactsCache.FilterVersion(cluster, placed.head), Left("no such class (as without the jar)"))
        regionsWithFilter(sql(query)) shouldBe Seq(false, true, true, false)
        sql(s"EXPLAIN $query").collect()(0).getString(0) should include(", 2 regions read without the server jar")
      } finally FactsCache.forget(FactsCache.FilterVersion(cluster, placed.head))
      sql(s"DROP TABLE $t PURGE")
    }

    it("learns nothing of a region server from a probe that fails, and keeps nothing") {
      val region = HBaseRegions.of(cluster, HBaseTableName("default", table)).head
      FactsCache.forget(FactsCache.FilterVersion(cluster, region.serverName))
      val missing = HBaseTableDef(
        "missing",
        HBaseTableName("default", uniqueName("no_such_table")),
        Seq(HBaseColumn("k", IntegerType, nullable = false, None)),
        Seq("k"),
        TableFormat.Binary
      )
      ServerFilterSupport.versions(cluster, missing, Seq(region), 600) shouldBe empty
      FactsCache.cached(FactsCache.FilterVersion(cluster, region.serverName), Long.MaxValue) shouldBe None
    }
  }
}
