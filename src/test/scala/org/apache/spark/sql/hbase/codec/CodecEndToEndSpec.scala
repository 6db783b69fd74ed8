// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.hbase.client.{Get, Put}

import org.apache.spark.sql.hbase.HBaseSuite
import org.apache.spark.sql.Row
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, InterpretedOrdering}
import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, KeyGenerators}
import org.apache.spark.sql.types._
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/** Every type through real HBase: written by SQL, stored by our codecs, read back in key order. */
class CodecEndToEndSpec extends HBaseSuite {

  private val valueTypes: Seq[DataType] = KeyGenerators.allTypes

  private def sample(types: Seq[DataType], seed: Long): Seq[Any] = {
    val params = org.scalacheck.Gen.Parameters.default.withInitialSeed(seed)
    types.map(t => KeyGenerators.valueOf(t, civilDates = true).pureApply(params, org.scalacheck.rng.Seed(seed)))
  }

  /** Rows as values `==` can compare: binaries become sequences and NaN a marker. */
  private def comparable(row: Row): Seq[Any] = row.toSeq.map {
    case b: Array[Byte] => b.toSeq
    case d: Double if d.isNaN => "NaN"
    case f: Float if f.isNaN => "NaN"
    case other => other
  }

  private def withConf[T](key: String, value: String)(body: => T): T = {
    val before = spark.conf.getOption(key)
    spark.conf.set(key, value)
    try body
    finally before.fold(spark.conf.unset(key))(spark.conf.set(key, _))
  }

  describe("a table pre-split into several regions, with a composite key") {
    it("returns every row in key order, partitions in region order, with every value of every type intact") {
      val t = uniqueName("alltypes")
      val keyTypes = Seq(StringType, DateType, DecimalType(38, 10), DoubleType)
      val keyCodec = new BinaryKeyCodec(keyTypes)
      // Split on the first key column: regions hold keys < "b", ["b", "é"), >= "é".
      val splits =
        Seq("b", "é").map(s => keyCodec.encodePrefix(Seq(org.apache.spark.unsafe.types.UTF8String.fromString(s))))
      createHBaseTable(t, Seq("f", "g"), splits)
      val valueColumns = valueTypes.zipWithIndex.map { case (dt, i) => s"v$i ${dt.sql}" }
      val mappings = valueTypes.indices.map(i => s"v$i=${if (i % 2 == 0) "f" else "g"}.q$i")
      sql(s"""CREATE TABLE $t (k1 STRING, k2 DATE, k3 DECIMAL(38,10), k4 DOUBLE, ${valueColumns.mkString(", ")},
             |PRIMARY KEY (k1, k2, k3, k4)) MAPPED BY ($t, COLS=[${mappings.mkString(", ")}])""".stripMargin)

      val random = new Random(42)
      val schema = spark.table(t).schema
      val internalRows = (0 until 400).map { i =>
        val key = sample(keyTypes, random.nextLong())
        // Every value column is NULL in some rows, so missing cells are covered too.
        val values = sample(valueTypes, random.nextLong()).map(v => if (random.nextInt(8) == 0) null else v)
        new GenericInternalRow((key ++ values).toArray): InternalRow
      }
      val ordering = InterpretedOrdering.forSchema(keyTypes)
      val unique = internalRows.groupBy(r => keyCodec.encode(keyTypes.indices.map(i => r.get(i, keyTypes(i)))).toSeq)
        .values.map(_.last).toSeq
      val expectedInternal = unique.sortWith((a, b) => ordering.compare(a, b) < 0)

      // java.time values: no calendar rebasing of dates before 1582 on the way in or out; a task per
      // region, to see each region's rows in a partition of their own.
      withConf("spark.sql.datetime.java8API.enabled" -> "true", HBaseSQLConf.ScanTaskMaxBytes.key -> "0") {
        val toRow = org.apache.spark.sql.catalyst.CatalystTypeConverters.createToScalaConverter(schema)
        val expected = expectedInternal.map(r => toRow(r).asInstanceOf[Row])
        spark.createDataFrame(expected.asJava, schema).write.insertInto(t)

        val df = spark.table(t)
        df.rdd.getNumPartitions shouldBe 3
        val byPartition = df.rdd.mapPartitionsWithIndex((i, rows) => rows.map(r => (i, r))).collect().toSeq
        byPartition.map(p => comparable(p._2)) shouldBe expected.map(comparable)
        byPartition.map(_._1) shouldBe sorted
        byPartition.map(_._1).distinct shouldBe Seq(0, 1, 2)
      }
    }
  }

  describe("a table IN StringFormat") {
    it("reads rows that another tool wrote as text, splitting the key on the delimiter") {
      val t = uniqueName("shellrows")
      createHBaseTable(t, Seq("cf"))
      withTable(t) { table =>
        def put(key: String, cells: (String, String)*): Unit = {
          val p = new Put(Utf8.bytes(key))
          cells.foreach { case (q, v) => p.addColumn(Utf8.bytes("cf"), Utf8.bytes(q), Utf8.bytes(v)) }
          table.put(p)
        }
        put("emea#2024-03-01", "amount" -> "12.50", "paid" -> "true", "at" -> "2024-03-01 10:15:00")
        put("amer#2023-12-31", "amount" -> "-3", "paid" -> "false")
        put("emea#2024-01-15", "amount" -> "not a number", "paid" -> "true")
      }
      sql(s"""CREATE TABLE $t (region STRING, day DATE, amount DECIMAL(10,2), paid BOOLEAN, at TIMESTAMP,
             |PRIMARY KEY (region, day)) MAPPED BY ($t, COLS=[amount=cf.amount, paid=cf.paid, at=cf.at])
             |IN StringFormat DELIMITER '#'""".stripMargin)
      withConf("spark.sql.session.timeZone", "UTC") {
        sql(s"SELECT region, CAST(day AS STRING), CAST(amount AS STRING), paid, CAST(at AS STRING) FROM $t")
          .collect().toSeq shouldBe Seq(
          Row("amer", "2023-12-31", "-3.00", false, null),
          Row("emea", "2024-01-15", null, true, null),
          Row("emea", "2024-03-01", "12.50", true, "2024-03-01 10:15:00")
        )
      }
    }

    it("writes rows as text that the HBase shell would show, and refuses a key part holding the delimiter") {
      val t = uniqueName("textrows")
      sql(s"""CREATE TABLE $t (host STRING, port INT, up BOOLEAN, PRIMARY KEY (host, port))
             |MAPPED BY ($t, COLS=[up=s.up]) IN StringFormat""".stripMargin)
      sql(s"INSERT INTO $t VALUES ('db1', 5432, true), ('web', 80, NULL)")
      withTable(t) { table =>
        Utf8.string(table.get(new Get(Utf8.bytes("db1|5432"))).getValue(Utf8.bytes("s"), Utf8.bytes("up"))) shouldBe
          "true"
        table.exists(new Get(Utf8.bytes("web|80"))) shouldBe true
      }
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row("db1", 5432, true), Row("web", 80, null))
      val e = intercept[Exception](sql(s"INSERT INTO $t VALUES ('a|b', 1, true)"))
      Iterator.iterate[Throwable](e)(_.getCause).takeWhile(_ != null).map(_.getMessage).mkString should
        include("Key part 1 'a|b' contains the key delimiter '|'")
    }
  }

  describe("writing a key again") {
    it("replaces the row, NULLs included, so a re-run INSERT is idempotent") {
      val t = uniqueName("upsert")
      sql(s"CREATE TABLE $t (k INT, a STRING, b STRING, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[a=f.a, b=f.b])")
      sql(s"INSERT INTO $t VALUES (1, 'x', 'y'), (2, 'p', 'q')")
      sql(s"INSERT INTO $t VALUES (1, NULL, 'z')")
      sql(s"INSERT INTO $t VALUES (1, NULL, 'z')")
      sql(s"SELECT * FROM $t").collect().toSeq shouldBe Seq(Row(1, null, "z"), Row(2, "p", "q"))
    }
  }
}
