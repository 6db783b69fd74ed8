// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.jdk.CollectionConverters._
import scala.util.Random

import org.apache.hadoop.hbase.client.{Get, Put}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.{HBaseSuite, RandomClauses, execution}
import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}

class RowLevelStatementsSpec extends HBaseSuite {

  private def people(layout: String = ""): String = {
    val t = uniqueName("people")
    sql(s"""CREATE TABLE $t (id INT, name STRING, age INT, city STRING, PRIMARY KEY (id))
           |MAPPED BY ($t, COLS=[name=f.n, age=f.a, city=g.c]) $layout SPLIT ON ((10), (20))""".stripMargin)
    sql(
      s"INSERT INTO $t SELECT CAST(id AS INT), CONCAT('p', id), CAST(20 + id AS INT), IF(id % 2 = 0, 'Oslo', 'Rome') FROM range(30)"
    )
    t
  }

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  describe("DELETE FROM an HBase table") {
    it("deletes the rows its WHERE clause matches, whole, and says how many") {
      val t = people()
      rows(s"DELETE FROM $t WHERE id IN (3, 15, 27) OR city = 'Oslo' AND age > 45") shouldBe Seq(Row(3 + 2))
      rows(s"SELECT id FROM $t ORDER BY id").map(_.getInt(0)) shouldBe
        (0 until 30).filterNot(i => Set(3, 15, 27, 26, 28).contains(i))
      withTable(t)(_.get(new Get(Bytes.toBytes(0x80000000 ^ 15))).isEmpty) shouldBe true
    }

    it("reads only the rows it deletes when its WHERE clause is on the key, as a query would") {
      val t = people()
      val deleted = sql(s"DELETE FROM $t WHERE id IN (3, 15, 27)")
      deleted.collect().toSeq shouldBe Seq(Row(3))
      val metrics = execution.ScanMetrics.of(deleted)
      (metrics("regionsScanned"), metrics("rowsScanned")) shouldBe ((3, 3))
      val updated = sql(s"UPDATE $t SET age = 0 WHERE id BETWEEN 10 AND 14")
      updated.collect().toSeq shouldBe Seq(Row(5))
      val updateMetrics = execution.ScanMetrics.of(updated)
      (updateMetrics("regionsScanned"), updateMetrics("rowsScanned")) shouldBe ((1, 5))
    }

    it("under an alias, and with a subquery") {
      val t = people()
      rows(s"DELETE FROM $t AS p WHERE p.id IN (SELECT id + 1 FROM $t WHERE id < 3)") shouldBe Seq(Row(3))
      rows(s"SELECT count(*) FROM $t WHERE id BETWEEN 1 AND 3") shouldBe Seq(Row(0))
    }

    it("without WHERE empties the table") {
      val t = people()
      rows(s"DELETE FROM $t") shouldBe Seq(Row(30))
      rows(s"SELECT count(*) FROM $t") shouldBe Seq(Row(0))
    }

    it("leaves the cells of families the mapping does not name") {
      val t = people("LAYOUT CELLS") // where a plain client's cell in a mapped family is one of the row's
      withTable(t)(_.put(new Put(Bytes.toBytes(0x80000000 ^ 4)).addColumn(
        Bytes.toBytes("f"),
        Bytes.toBytes("extra"),
        Bytes.toBytes("x")
      )))
      // A family outside the mapping: created on the HBase table, unknown to the SQL table.
      withAdmin(_.addColumnFamily(
        org.apache.hadoop.hbase.TableName.valueOf(t),
        org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.of("other")
      ))
      withTable(t)(_.put(new Put(Bytes.toBytes(0x80000000 ^ 4)).addColumn(
        Bytes.toBytes("other"),
        Bytes.toBytes("o"),
        Bytes.toBytes("y")
      )))
      rows(s"DELETE FROM $t WHERE id = 4") shouldBe Seq(Row(1))
      val left = withTable(t)(_.get(new Get(Bytes.toBytes(0x80000000 ^ 4)))).rawCells().map(c =>
        Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength)
      ).toSeq
      left shouldBe Seq("other")
      rows(s"SELECT count(*) FROM $t WHERE id = 4") shouldBe Seq(Row(0))
    }
  }

  describe("UPDATE an HBase table") {
    it("writes only the SET columns of the rows its WHERE clause matches") {
      val t = people()
      rows(s"UPDATE $t SET age = age + 100, city = NULL WHERE id < 3 OR name = 'p29'") shouldBe Seq(Row(4))
      rows(s"SELECT id, name, age, city FROM $t WHERE id IN (0, 2, 3, 29) ORDER BY id") shouldBe Seq(
        Row(0, "p0", 120, null),
        Row(2, "p2", 122, null),
        Row(3, "p3", 23, "Rome"),
        Row(29, "p29", 149, null)
      )
    }

    it("casts the new values to the columns' types, as INSERT does") {
      val t = people()
      rows(s"UPDATE $t SET name = id * 2, age = '7' WHERE id = 5") shouldBe Seq(Row(1))
      rows(s"SELECT name, age FROM $t WHERE id = 5") shouldBe Seq(Row("10", 7))
    }

    it("keeps a row whose every value becomes NULL") {
      val t = people()
      rows(s"UPDATE $t SET name = NULL, age = NULL, city = NULL WHERE id = 6") shouldBe Seq(Row(1))
      rows(s"SELECT * FROM $t WHERE id = 6") shouldBe Seq(Row(6, null, null, null))
    }

    it("refuses to set a key column, and changes nothing") {
      val t = people()
      val error = intercept[HBaseSQLException](sql(s"UPDATE $t SET id = id + 100 WHERE id = 1"))
      error.getMessage should startWith(s"UPDATE $t SET id: 'id' is a key column")
      rows(s"SELECT count(*), min(id), max(id) FROM $t") shouldBe Seq(Row(30, 0, 29))
    }
  }

  describe("DELETE and UPDATE of other tables") {
    it("stay Spark's: a Parquet table is refused by Spark itself, in Spark's words") {
      val t = uniqueName("parquet")
      sql(s"CREATE TABLE $t (a INT) USING parquet")
      try {
        for (
          (statement, operation) <-
            Seq(s"DELETE FROM $t WHERE a = 1" -> "DELETE", s"UPDATE $t SET a = 2" -> "UPDATE TABLE")
        ) {
          val error = intercept[Exception](sql(statement))
          error.asInstanceOf[org.apache.spark.SparkThrowable].getCondition shouldBe
            "UNSUPPORTED_FEATURE.TABLE_OPERATION"
          error.getMessage should include(s"`$t` does not support $operation")
        }
      } finally sql(s"DROP TABLE $t")
    }
  }

  describe("DELETE and UPDATE on a table with a range index") {
    it("never let the index hide a row it changed, and the chunks it changed are not trusted until rebuilt") {
      val t = people()
      sql(s"CREATE INDEX ${t}_age ON TABLE $t (age) OPTIONS (chunkRows = 4)")
      // Ages 20..49 follow the key, so the index rules out every chunk but one for any age.
      val used = sql(s"SELECT id FROM $t WHERE age = 27")
      used.collect().toSeq shouldBe Seq(Row(7))
      execution.ScanMetrics.of(used)("chunksSkipped") should be > 0L
      rows(s"UPDATE $t SET age = 1000 WHERE id = 7") shouldBe Seq(Row(1))
      rows(s"SELECT id FROM $t WHERE age = 1000") shouldBe Seq(Row(7))
      rows(s"DELETE FROM $t WHERE age = 1000") shouldBe Seq(Row(1))
      rows(s"SELECT count(*) FROM $t WHERE age >= 20") shouldBe Seq(Row(29))
      sql(s"ANALYZE TABLE $t COMPUTE STATISTICS")
      rows(s"UPDATE $t SET age = 2000 WHERE id = 21") shouldBe Seq(Row(1))
      rows(s"SELECT id FROM $t WHERE age = 2000") shouldBe Seq(Row(21))
    }
  }

  describe("DELETE and UPDATE against Spark over the same rows") {
    val strings = Seq("", "a", "ab", "b", "bz", "é")

    def predicate(random: Random): String = {
      def pick[T](options: T*): T = options(random.nextInt(options.size))
      def str = s"'${pick(strings: _*)}'"
      RandomClauses.nested(random, 2) {
        random.nextInt(8) match {
          case 0 => s"a ${pick("=", "<", ">=", "<>")} ${random.nextInt(120) - 60}"
          case 1 => s"a IN (${Seq.fill(1 + random.nextInt(4))(random.nextInt(120) - 60).mkString(", ")})"
          case 2 => s"a = ${random.nextInt(120) - 60} AND b = $str"
          case 3 => s"b ${pick("=", "<", ">")} $str"
          case 4 => s"v ${pick("=", "<", ">", "<=>")} ${random.nextInt(10)}"
          case 5 => pick("v IS NULL", "w IS NOT NULL", s"w = $str", "w < b", "a % 3 = v % 3", "x IS NULL", "x > v")
          case 6 => s"a BETWEEN ${random.nextInt(120) - 60} AND ${random.nextInt(120) - 60}"
          case _ => s"b IN ($str, $str) AND a > ${random.nextInt(120) - 60}"
        }
      }
    }

    /** Column -> new value, for v, w or both. */
    def assignments(random: Random): Map[String, String] = Seq(
      "v" -> "v + 1",
      "v" -> "NULL",
      "v" -> "a % 7",
      "w" -> "CONCAT(w, 'x')",
      "w" -> "NULL",
      "w" -> "b",
      "w" -> "v"
    )
      .filter(_ => random.nextBoolean()).groupBy(_._1).values.map(_.head).toMap match {
      case none if none.isEmpty => Map("v" -> "0")
      case some => some
    }

    // Each layout in each mode: in the packed table v, w and x share family f, so an UPDATE of v or
    // w merges into the packed cell that also holds x, which no statement sets.
    val rounds = 30
    for (
      (mode, settings) <- Seq(
        "in the region servers" -> Seq.empty[(String, String)],
        "without the server jar's filter" -> Seq(HBaseSQLConf.CustomFilter.key -> "false")
      );
      (layout, columns) <- Seq("CELLS" -> "v=f.v, w=g.w, x=g.x", "PACKED" -> "v=f.v, w=f.w, x=f.x")
    ) {
      it(s"leave exactly the rows Spark leaves, $rounds random statements, $mode, in LAYOUT $layout") {
        val t = uniqueName("rowlevel")
        sql(s"""CREATE TABLE $t (a INT, b STRING, v INT, w STRING, x DOUBLE, PRIMARY KEY (a, b))
               |MAPPED BY ($t, COLS=[$columns]) LAYOUT $layout
               |SPLIT ON ((-20), (0), (0, 'b'), (30))""".stripMargin)
        val random = new Random((if (settings.isEmpty) 11 else 12) + (if (layout == "PACKED") 10 else 0))
        val initial = (0 until 1500).map { _ =>
          Row(
            random.nextInt(120) - 60,
            strings(random.nextInt(strings.size)),
            if (random.nextInt(5) == 0) null else Integer.valueOf(random.nextInt(10)),
            if (random.nextInt(5) == 0) null else strings(random.nextInt(strings.size)),
            if (random.nextInt(5) == 0) null else java.lang.Double.valueOf(random.nextInt(40) / 4.0)
          )
        }
        val schema = spark.table(t).schema
        spark.createDataFrame(initial.asJava, schema).write.insertInto(t)
        var truth = spark.table(t).collect().toSeq
        def truthView(): Unit = spark.createDataFrame(truth.asJava, schema).createOrReplaceTempView(s"${t}_truth")
        val ordered = Ordering.by[Row, (Int, String)](r => (r.getInt(0), r.getString(1)))

        withConf(settings: _*) {
          for (round <- 1 to rounds) {
            val where = predicate(random)
            truthView()
            val matched = rows(s"SELECT count(*) FROM ${t}_truth WHERE $where").head.getLong(0)
            val (statement, expected) =
              if (random.nextBoolean()) {
                (s"DELETE FROM $t WHERE $where", rows(s"SELECT * FROM ${t}_truth WHERE NOT coalesce($where, false)"))
              } else {
                val set = assignments(random)
                val changed = Seq("v" -> "INT", "w" -> "STRING").map { case (c, sqlType) =>
                  set.get(c).fold(c)(value =>
                    s"CASE WHEN coalesce($where, false) THEN CAST($value AS $sqlType) ELSE $c END"
                  )
                }
                (
                  s"UPDATE $t SET ${set.map { case (c, value) => s"$c = $value" }.mkString(", ")} WHERE $where",
                  rows(s"SELECT a, b, ${changed.mkString(", ")}, x FROM ${t}_truth")
                )
              }
            withClue(s"round $round: $statement") {
              rows(statement) shouldBe Seq(Row(matched))
              rows(s"SELECT * FROM $t").sorted(ordered) shouldBe expected.sorted(ordered)
            }
            truth = expected
          }
        }
      }
    }
  }
}
