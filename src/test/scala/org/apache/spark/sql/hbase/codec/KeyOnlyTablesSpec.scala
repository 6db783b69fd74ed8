// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.nio.charset.StandardCharsets
import java.nio.file.Files

import org.apache.hadoop.hbase.client.{Get, Put}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, codec, execution, metadata}
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.unsafe.types.UTF8String
import org.apache.spark.sql.hbase.common.HBaseSQLException

/** Tables whose every column is in the row key: edge lists, sets, the keys of any HBase table. */
class KeyOnlyTablesSpec extends HBaseSuite {

  private def edges(cols: String): String = {
    val t = uniqueName("edges")
    sql(s"CREATE TABLE $t (src STRING, dst STRING, PRIMARY KEY (src, dst)) MAPPED BY ($t$cols) SPLIT ON (('m'))")
    t
  }

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  private def cellsOf(t: String, key: Array[Byte]): Seq[(String, String)] =
    withTable(t)(_.get(new Get(key))).rawCells().toSeq.map(c =>
      Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength) ->
        Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength)
    )

  describe("a key-only table") {
    for (cols <- Seq("", ", COLS=[]")) {
      it(s"is mapped with MAPPED BY (t$cols), written as one empty cell per row in family f, and read by key") {
        val t = edges(cols)
        sql(s"INSERT INTO $t VALUES ('a', 'b'), ('a', 'c'), ('n', 'a'), ('z', 'a'), ('a', 'b')")
        rows(s"SELECT * FROM $t") shouldBe Seq(Row("a", "b"), Row("a", "c"), Row("n", "a"), Row("z", "a"))
        val keyed = sql(s"SELECT dst FROM $t WHERE src = 'a' AND dst > 'b'")
        keyed.collect().toSeq shouldBe Seq(Row("c"))
        execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 1
        val table = metadata.TableDefinitionStores.of(spark).get(t).get
        table.isKeyOnly shouldBe true
        val key = new codec.RowCodec(table).rowKey(InternalRow(UTF8String.fromString("a"), UTF8String.fromString("b")))
        cellsOf(t, key) shouldBe Seq("f" -> "")
        described(t)("Row marker family") shouldBe "f"
      }
    }

    it("counts, deletes and bulk-loads rows like any table") {
      val t = edges("")
      sql(s"INSERT INTO $t SELECT CONCAT('s', id % 7), CONCAT('d', id) FROM range(100)")
      val counted = sql(s"SELECT src, count(*) FROM $t GROUP BY src ORDER BY src")
      counted.collect().toSeq.map(_.getLong(1)).sum shouldBe 100
      counted.queryExecution.executedPlan.toString should include("partial aggregate in region servers")
      rows(s"DELETE FROM $t WHERE src = 's3'") shouldBe Seq(Row(14))
      rows(s"SELECT count(*) FROM $t WHERE src = 's3'") shouldBe Seq(Row(0))
      val file = Files.createTempDirectory("key-only").resolve("more.csv")
      Files.write(file, "s3,x\ns3,y\nq,q\n".getBytes(StandardCharsets.UTF_8))
      rows(s"LOAD DATA LOCAL INPATH '$file' INTO TABLE $t") shouldBe Seq(Row(3L, 0L))
      rows(s"SELECT dst FROM $t WHERE src = 's3'") shouldBe Seq(Row("x"), Row("y"))
      rows(s"SELECT count(*) FROM $t") shouldBe Seq(Row(89))
    }

    it("refuses UPDATE, whose every column is a key column") {
      val t = edges("")
      intercept[HBaseSQLException](sql(s"UPDATE $t SET dst = 'x'")).getMessage should
        startWith(s"UPDATE $t SET dst: 'dst' is a key column")
    }
  }

  describe("an existing HBase table mapped key-only") {
    it("reads every row, whatever families its cells are in, and writes its marker to the first family") {
      val t = uniqueName("existing")
      createHBaseTable(t, Seq("b", "a"))
      withTable(t) { table =>
        table.put(new Put(Bytes.toBytes("r1")).addColumn(Bytes.toBytes("a"), Bytes.toBytes("x"), Bytes.toBytes("1")))
        table.put(new Put(Bytes.toBytes("r2")).addColumn(Bytes.toBytes("b"), Bytes.toBytes("y"), Bytes.toBytes("2")))
      }
      sql(s"CREATE TABLE $t (k STRING, PRIMARY KEY (k)) MAPPED BY ($t) IN StringFormat")
      rows(s"SELECT k FROM $t") shouldBe Seq(Row("r1"), Row("r2"))
      sql(s"INSERT INTO $t VALUES ('r3')")
      cellsOf(t, Bytes.toBytes("r3")) shouldBe Seq("a" -> "")
      rows(s"DELETE FROM $t WHERE k = 'r2'") shouldBe Seq(Row(1))
      withTable(t)(_.get(new Get(Bytes.toBytes("r2"))).isEmpty) shouldBe true
      rows(s"SELECT k FROM $t") shouldBe Seq(Row("r1"), Row("r3"))
    }
  }

  describe("dropping the last mapped column") {
    it("leaves a key-only table with every row, also those whose values were all NULL") {
      val t = uniqueName("dropped")
      sql(s"CREATE TABLE $t (k INT, v STRING, w STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v, w=g.w])")
      sql(s"INSERT INTO $t VALUES (1, 'x', NULL), (2, NULL, 'y'), (3, NULL, NULL)")
      sql(s"ALTER TABLE $t DROP COLUMN v")
      rows(s"SELECT * FROM $t") shouldBe Seq(Row(1, null), Row(2, "y"), Row(3, null))
      sql(s"ALTER TABLE $t DROP COLUMN w")
      rows(s"SELECT * FROM $t") shouldBe Seq(Row(1), Row(2), Row(3))
      described(t)("Row marker family") shouldBe "f"
    }
  }

  private def described(t: String): Map[String, String] =
    sql(s"DESCRIBE $t").collect().map(r => r.getString(0) -> r.getString(1)).toMap
}
