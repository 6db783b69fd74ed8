// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import org.apache.spark.sql.hbase.{HBaseSuite, Waits, connector, execution}
import org.apache.spark.sql.{AnalysisException, Row}
import org.apache.spark.sql.hbase.common.HBaseSQLException

/** HBase tables named through Spark's catalog API: `hbase.t`, `hbase.default.t`, and other catalogs. */
class HBaseSparkCatalogSpec extends HBaseSuite {

  private def rows(query: String): Seq[Row] = sql(query).collect().toSeq

  private def table(): String = {
    val t = uniqueName("cat")
    sql(s"CREATE TABLE hbase.$t (k INT, s STRING, v INT, v_at TIMESTAMP, PRIMARY KEY (k, s)) " +
      s"MAPPED BY ($t, COLS=[v=f.v, v_at=WRITETIME(f.v)]) FAMILIES (f (VERSIONS = 3)) SPLIT ON ((50))")
    t
  }

  describe("the hbase catalog") {
    it("names the same tables as one-part names, read with key ranges and skip scans, and as of a time") {
      val t = table()
      sql(s"INSERT INTO $t VALUES ${(1 to 99).map(k => s"($k, 'x', $k)").mkString(", ")}")
      val before = System.currentTimeMillis()
      Waits.clockPast(before)
      sql(s"UPDATE hbase.$t SET v = -v WHERE k = 7")
      for (name <- Seq(s"hbase.$t", s"hbase.hbase.$t", s"hbase.default.$t", s"`hbase`.`default`.`$t`")) withClue(name) {
        val keyed = sql(s"SELECT k, v FROM $name WHERE k IN (7, 70) AND s = 'x'")
        keyed.collect().toSeq.sortBy(_.getInt(0)) shouldBe Seq(Row(7, -7), Row(70, 70))
        execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 2
        val skip = sql(s"SELECT count(*) FROM $name WHERE s = 'x' AND k > 90")
        skip.collect().toSeq shouldBe Seq(Row(9L))
      }
      rows(s"SELECT v FROM hbase.default.$t TIMESTAMP AS OF timestamp_millis($before) WHERE k = 7") shouldBe Seq(Row(7))
      withConf("spark.sql.session.timeZone" -> "UTC") {
        val literal = java.time.Instant.ofEpochMilli(before).toString.replace("T", " ").stripSuffix("Z")
        rows(s"SELECT v FROM hbase.$t TIMESTAMP AS OF '$literal' WHERE k = 7") shouldBe Seq(Row(7))
      }
      // Spark takes `hbase.t` for a query on files of format hbase while a time expression is still unresolved.
      intercept[AnalysisException](sql(s"SELECT v FROM hbase.$t TIMESTAMP AS OF timestamp_millis($before)"))
        .getCondition shouldBe "UNSUPPORTED_DATASOURCE_FOR_DIRECT_QUERY"
      rows(s"SELECT a.k FROM hbase.$t a JOIN $t b ON a.k = b.k AND a.v <> b.v") shouldBe Nil
      intercept[HBaseSQLException](sql(s"SELECT * FROM hbase.$t VERSION AS OF 2")).getMessage should startWith(
        s"VERSION AS OF is not supported on HBase table '$t'"
      )
    }

    it("writes through INSERT by position and by name, the DataFrame writer, DELETE and UPDATE") {
      val t = table()
      sql(s"INSERT INTO hbase.$t VALUES (1, 'a', 10)")
      sql(s"INSERT INTO hbase.default.$t (s, k) VALUES ('b', 2)")
      sql(s"INSERT INTO hbase.$t SELECT 3 AS k, 'c' AS s, 30L AS v")
      spark.createDataFrame(
        java.util.List.of(Row("d", 4, 40)),
        org.apache.spark.sql.types.StructType.fromDDL("s STRING, k INT, v INT")
      ).writeTo(s"hbase.$t").append()
      rows(s"SELECT k, s, v, v_at IS NULL FROM $t ORDER BY k") shouldBe
        Seq(Row(1, "a", 10, false), Row(2, "b", null, true), Row(3, "c", 30, false), Row(4, "d", 40, false))
      rows(s"DELETE FROM hbase.$t WHERE k = 2") shouldBe Seq(Row(1L))
      rows(s"UPDATE hbase.default.$t SET v = v + 1 WHERE s = 'c'") shouldBe Seq(Row(1L))
      rows(s"SELECT k, v FROM hbase.$t ORDER BY k") shouldBe Seq(Row(1, 10), Row(3, 31), Row(4, 40))
      intercept[HBaseSQLException](sql(s"INSERT OVERWRITE hbase.$t VALUES (1, 'a', 1)")).getMessage shouldBe
        s"INSERT OVERWRITE is not supported on HBase table '$t'; use INSERT INTO"
      intercept[HBaseSQLException](sql(s"INSERT INTO hbase.$t (k, s, v_at) VALUES (5, 'e', now())")).getMessage should
        include("'v_at' is the write time of cell f.v")
    }

    it("creates, describes, lists and drops tables, and USE makes its names the one-part ones") {
      val t = table()
      val described =
        rows(s"DESCRIBE TABLE hbase.$t").map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
      described("v") shouldBe ("int", "cell f.v")
      described("HBase table") shouldBe (t, null)
      described("Family f")._1 should startWith("VERSIONS 3")
      rows("SHOW NAMESPACES IN hbase") shouldBe Seq(Row("hbase"))
      // Listed as (namespace, table), which names the table from any catalog: hbase.t.
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Seq(Row("hbase", t, false))
      rows(s"SELECT count(*) FROM hbase.hbase.$t") shouldBe Seq(Row(0L))
      try {
        sql("USE hbase")
        sql(s"INSERT INTO $t VALUES (1, 'a', 1)")
        rows(s"SELECT k FROM $t") shouldBe Seq(Row(1))
        rows(s"SHOW TABLES LIKE '$t'") shouldBe Seq(Row("hbase", t, false))
        rows("SELECT current_schema()") shouldBe Seq(Row("hbase"))
      } finally sql("USE spark_catalog.default")
      sql(s"DROP TABLE hbase.$t")
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Nil
      hbaseTableExists(t) shouldBe true
      sql(s"DROP TABLE IF EXISTS hbase.$t")
      intercept[AnalysisException](sql(s"DROP TABLE hbase.$t")).getCondition shouldBe "TABLE_OR_VIEW_NOT_FOUND"
    }

    it("refuses what it cannot do, naming the catalog, namespace or table") {
      val t = table()
      intercept[AnalysisException](sql(s"SELECT * FROM hbase.nope.$t")).getCondition shouldBe "TABLE_OR_VIEW_NOT_FOUND"
      intercept[AnalysisException](sql("SHOW TABLES IN hbase.nope")).getCondition shouldBe "SCHEMA_NOT_FOUND"
      intercept[HBaseSQLException](
        sql(s"CREATE TABLE nocat.x (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (x, COLS=[v=f.v])")
      )
        .getMessage shouldBe
        "CREATE TABLE x: 'nocat' is not an HBase catalog; register one with " +
        "spark.sql.catalog.nocat=org.apache.spark.sql.hbase.connector.HBaseSparkCatalog"
      intercept[HBaseSQLException](
        sql(s"CREATE TABLE hbase.nope.x (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (x, COLS=[v=f.v])")
      )
        .getMessage should startWith("CREATE TABLE: catalog 'hbase' has no namespace 'nope'")
      intercept[HBaseSQLException](sql("CREATE TABLE hbase.plain (k INT) USING parquet")).getMessage should startWith(
        "CREATE TABLE hbase.plain: an HBase table needs its mapping"
      )
      intercept[HBaseSQLException](sql("CREATE NAMESPACE hbase.other")).getMessage should
        include("its one namespace, hbase")
      intercept[HBaseSQLException](sql(s"ALTER TABLE hbase.$t RENAME TO hbase.y")).getMessage should
        include("cannot be renamed")
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Seq(Row("hbase", t, false))
      hbaseTableExists("x") shouldBe false
    }
  }

  describe("Spark's own CREATE TABLE through the hbase catalog, as tools such as dbt write it") {
    it("maps the key columns to the row key and the others to cells named after them, in family f by default") {
      val t = uniqueName("using")
      sql(s"CREATE TABLE hbase.$t (id INT, name STRING, score DOUBLE) USING hbase " +
        s"OPTIONS (primaryKey 'id', family 'g', columns 'score=h.s')")
      val described = rows(s"DESCRIBE hbase.$t").map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
      described("id") shouldBe ("int", "row key part 1 of 1; NOT NULL")
      described("name") shouldBe ("string", "cell g.name")
      described("score") shouldBe ("double", "cell h.s")
      withAdmin(_.getDescriptor(org.apache.hadoop.hbase.TableName.valueOf(t)).getColumnFamilyNames.size) shouldBe 2
      sql(s"INSERT INTO hbase.$t VALUES (2, 'b', 2.5), (1, 'a', NULL)")
      val keyed = sql(s"SELECT name, score FROM hbase.$t WHERE id = 2")
      keyed.collect().toSeq shouldBe Seq(Row("b", 2.5))
      execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 1

      val defaults = uniqueName("defaults")
      sql(s"CREATE TABLE hbase.$defaults (a STRING, b BIGINT, v STRING) OPTIONS (primaryKey 'b, a')")
      rows(s"DESCRIBE hbase.$defaults").map(r => r.getString(0) -> r.getString(2)).toMap.filter(_._1.length ==
        1) shouldBe
        Map("a" -> "row key part 2 of 2; NOT NULL", "b" -> "row key part 1 of 2; NOT NULL", "v" -> "cell f.v")
      rows(s"DESCRIBE hbase.$defaults").map(r => r.getString(0) -> r.getString(1)).toMap.apply("HBase table") shouldBe
        defaults
    }

    it("creates a table AS SELECT with the query's rows, as INSERT writes them") {
      val t = uniqueName("ctas")
      val query = "SELECT CAST(id % 7 AS INT) AS k, concat('s', id) AS s, id * 2 AS v FROM range(100)"
      sql(s"CREATE TABLE hbase.$t USING hbase OPTIONS (primaryKey 'k, s', hbaseTable '${t}_h') AS $query")
      hbaseTableExists(s"${t}_h") shouldBe true
      rows(s"SELECT * FROM hbase.$t ORDER BY k, s") shouldBe sql(s"$query ORDER BY k, s").collect().toSeq
      val keyed = sql(s"SELECT count(*) FROM hbase.$t WHERE k = 3")
      keyed.collect().toSeq shouldBe Seq(Row(14L))
      execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 14
      // IF NOT EXISTS over an existing table does nothing, as Spark's own CTAS.
      sql(
        s"CREATE TABLE IF NOT EXISTS hbase.$t USING hbase OPTIONS (primaryKey 'k, s') AS SELECT 99 AS k, 'x' AS s, 1L AS v"
      )
      rows(s"SELECT count(*) FROM hbase.$t") shouldBe Seq(Row(100L))
      intercept[HBaseSQLException](
        sql(s"CREATE TABLE hbase.$t USING hbase OPTIONS (primaryKey 'k, s') AS SELECT 99 AS k, 'x' AS s, 1L AS v")
      ).getMessage shouldBe s"CREATE TABLE $t: table '$t' already exists"
    }

    it("leaves no mapping and no HBase table behind when the rows of AS SELECT cannot be written") {
      val t = uniqueName("ctasfail")
      intercept[HBaseSQLException](sql(
        s"CREATE TABLE hbase.$t USING hbase OPTIONS (primaryKey 'k') AS SELECT IF(id = 5, NULL, id) AS k FROM range(10)"
      )).getMessage should include(s"Key column 'k' of table '$t' cannot be NULL")
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Nil
      hbaseTableExists(t) shouldBe false
    }

    it("refuses what an HBase table cannot be, naming the clause") {
      def refused(statement: String): String = intercept[HBaseSQLException](sql(statement)).getMessage
      val t = uniqueName("bad")
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase") shouldBe
        s"CREATE TABLE hbase.$t: an HBase table " +
        "needs its mapping: OPTIONS (primaryKey 'k1, k2, ...') names the columns of its row key"
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k', keys 'v')") should endWith(
        "unknown option 'keys'; the options of an HBase table are primaryKey, hbaseTable, family, columns and layout"
      )
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'x')") shouldBe
        s"CREATE TABLE $t: PRIMARY KEY column 'x' is not defined"
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k') PARTITIONED BY (v)") should
        endWith("HBase tables have no partitions: rows are ordered and split by their key")
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k') LOCATION '/tmp/x'") should
        include("LOCATION '/tmp/x': an HBase table has no location")
      refused(
        s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k') TBLPROPERTIES ('a' = 'b')"
      ) should
        include("TBLPROPERTIES ('a' ...): HBase tables keep no table properties")
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k', columns 'v=nofamily')") should
        endWith("option columns: 'nofamily' is not family.qualifier")
      refused(s"CREATE TABLE hbase.$t (k INT, v INT) USING hbase OPTIONS (primaryKey 'k', columns 'w=f.w')") should
        endWith("option columns maps 'w', which is not a value column of the table")
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Nil
      hbaseTableExists(t) shouldBe false
    }

    it("has CREATE SCHEMA IF NOT EXISTS of the catalog or its namespace do nothing, and plain CREATE SCHEMA refuse") {
      for (schema <- Seq("hbase", "hbase.hbase", "hbase.default")) withClue(schema) {
        rows(s"CREATE SCHEMA IF NOT EXISTS $schema") shouldBe Nil
      }
      intercept[HBaseSQLException](sql("CREATE SCHEMA hbase")).getMessage shouldBe
        "CREATE NAMESPACE hbase: it exists: it is the one namespace of HBase catalog 'hbase'"
      rows("SHOW NAMESPACES IN hbase") shouldBe Seq(Row("hbase"))
    }
  }

  describe("catalog names in our own statements") {
    it("load, alter, index and analyze a table that only its catalog name reaches") {
      withConf(
        "spark.sql.catalog.other" -> classOf[connector.HBaseSparkCatalog].getName,
        "spark.sql.catalog.other.catalogTable" -> "spark_hbase_sql:other_catalog"
      ) {
        val t = uniqueName("other")
        sql(
          s"CREATE TABLE other.$t (k INT, s STRING, v INT, PRIMARY KEY (k, s)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((50))"
        )
        val dir = java.nio.file.Files.createTempDirectory("catalog-load")
        java.nio.file.Files.write(
          dir.resolve("a.csv"),
          (1 to 99).map(k => s"$k,x,$k").mkString("", "\n", "\n").getBytes("UTF-8")
        )
        rows(s"LOAD DATA LOCAL INPATH '$dir' INTO TABLE other.$t") shouldBe Seq(Row(99L, 0L))
        java.nio.file.Files.write(
          dir.resolve("a.csv"),
          (1 to 99).map(k => s"$k;y;${-k}").mkString("", "\n", "\n").getBytes("UTF-8")
        )
        rows(s"LOAD DATA PARALLEL LOCAL INPATH '$dir' INTO TABLE other.default.$t FIELDS TERMINATED BY ';'") shouldBe
          Seq(Row(99L, 0L))
        sql(s"ALTER TABLE other.$t ADD COLUMN w STRING MAPPED BY (w = f.w)")
        sql(s"UPDATE other.$t SET w = concat('w', k) WHERE k = 7 AND s = 'x'")
        val keyed = sql(s"SELECT k, s, v, w FROM other.$t WHERE k IN (7, 70) AND s = 'x'")
        keyed.collect().toSeq.sortBy(_.getInt(0)) shouldBe Seq(Row(7, "x", 7, "w7"), Row(70, "x", 70, null))
        execution.ScanMetrics.of(keyed)("rowsScanned") shouldBe 2
        val skip = sql(s"SELECT k, v FROM other.$t WHERE s = 'y' AND k > 90")
        skip.collect().toSeq.sortBy(_.getInt(0)) shouldBe (91 to 99).map(k => Row(k, -k))
        execution.ScanMetrics.of(skip)("rowsRead") shouldBe 9
        rows(s"SELECT count(*), sum(v) FROM other.$t WHERE s = 'y'") shouldBe Seq(Row(99L, -(1 to 99).sum.toLong))

        sql(s"CREATE INDEX by_v ON other.$t (v) OPTIONS (chunkRows = 20)")
        rows(s"SHOW INDEXES ON other.$t").map(r =>
          (r.getString(0), r.getString(2), r.getInt(4) == r.getInt(5))
        ) shouldBe
          Seq(("by_v", "v", true))
        sql(s"ANALYZE TABLE other.default.$t COMPUTE STATISTICS")
        rows(s"SELECT k FROM other.$t WHERE v BETWEEN 40 AND 42 ORDER BY k") shouldBe Seq(Row(40), Row(41), Row(42))
        sql(s"DROP INDEX by_v ON other.$t")
        rows(s"SHOW INDEXES ON other.default.$t") shouldBe Nil
        sql(s"ALTER TABLE other.default.$t DROP COLUMN w")
        rows(s"DESCRIBE other.$t").map(_.getString(0)).takeWhile(_.nonEmpty) shouldBe Seq("k", "s", "v")

        // The session's own HBase tables and Spark's tables are other names.
        intercept[HBaseSQLException](sql(s"SHOW INDEXES ON $t")).getMessage shouldBe
          s"SHOW INDEXES ON $t: HBase table '$t' does not exist"
        intercept[HBaseSQLException](sql(s"ALTER TABLE other.nope DROP COLUMN w")).getMessage shouldBe
          "ALTER TABLE other.nope DROP COLUMN w: HBase table 'other.nope' does not exist"
        intercept[HBaseSQLException](sql(s"LOAD DATA LOCAL INPATH '$dir' INTO TABLE other.nope")).getMessage shouldBe
          "LOAD DATA INTO TABLE other.nope: HBase table 'other.nope' does not exist"
        intercept[HBaseSQLException](
          sql(s"ALTER TABLE other.nope.$t ADD COLUMN w STRING MAPPED BY (w = f.w)")
        ).getMessage should
          startWith("ALTER TABLE: catalog 'other' has no namespace 'nope'")
        intercept[HBaseSQLException](sql(s"SHOW INDEXES ON nocat.$t")).getMessage should
          startWith(s"SHOW INDEXES ON nocat.$t: 'nocat' is not an HBase catalog")
        intercept[AnalysisException](sql(s"LOAD DATA LOCAL INPATH '$dir' INTO TABLE default.$t")).getCondition shouldBe
          "TABLE_OR_VIEW_NOT_FOUND"
        sql(s"DROP TABLE other.$t")
      }
    }
  }

  describe("DESCRIBE of one column") {
    it("gives its name, type and mapping by either name of the table, and names the table of a column it lacks") {
      val t = table()
      val expected = Seq(Row("col_name", "v"), Row("data_type", "int"), Row("comment", "cell f.v"))
      rows(s"DESCRIBE hbase.$t v") shouldBe expected
      rows(s"DESCRIBE $t V") shouldBe expected
      rows(s"DESCRIBE $t $t.v") shouldBe expected
      rows(s"DESCRIBE TABLE EXTENDED $t k") shouldBe
        Seq(Row("col_name", "k"), Row("data_type", "int"), Row("comment", "row key part 1 of 2; NOT NULL"))
      intercept[HBaseSQLException](sql(s"DESCRIBE $t nothing")).getMessage shouldBe
        s"DESCRIBE of table '$t': it has no column nothing (its columns: k, s, v, v_at)"
      // A temp view of the same name is Spark's first, as for every statement.
      sql(s"CREATE OR REPLACE TEMPORARY VIEW $t AS SELECT 'view' AS what")
      try rows(s"DESCRIBE $t what").map(_.getString(1)) shouldBe Seq("what", "string", "NULL")
      finally sql(s"DROP VIEW $t")
    }
  }

  describe("one-part names") {
    it("are Spark's first for every statement: a temp view of the same name is read, described and dropped") {
      val t = table()
      sql(s"INSERT INTO $t VALUES (1, 'a', 10)")
      sql(s"CREATE OR REPLACE TEMPORARY VIEW $t AS SELECT 'view' AS what")
      rows(s"SELECT * FROM $t") shouldBe Seq(Row("view"))
      rows(s"DESCRIBE $t").map(_.getString(0)) shouldBe Seq("what")
      sql(s"DROP TABLE $t") // the view, as Spark would
      rows(s"SELECT k, v FROM $t") shouldBe Seq(Row(1, 10))
      rows(s"DESCRIBE $t").map(_.getString(0)) should contain("HBase table")
      sql(s"DROP TABLE $t")
      rows(s"SHOW TABLES IN hbase LIKE '$t'") shouldBe Nil
      intercept[AnalysisException](sql(s"DROP TABLE $t")).getCondition shouldBe "TABLE_OR_VIEW_NOT_FOUND"
      sql(s"DROP TABLE IF EXISTS $t")
    }

    it("leave HBase alone for Spark's own tables: SHOW TABLES, DESCRIBE and DROP work with HBase unreachable") {
      val p = uniqueName("parquet")
      withConf("spark.hbase.zookeeper.property.clientPort" -> "1", "spark.hbase.client.retries.number" -> "1") {
        sql(s"CREATE TABLE $p (a INT) USING parquet")
        rows("SHOW TABLES").map(_.getString(1)) should contain(p)
        rows(s"DESCRIBE $p").map(_.getString(0)) shouldBe Seq("a")
        sql(s"DROP TABLE $p")
        rows("SHOW TABLES").map(_.getString(1)) should not contain p
      }
    }
  }

  describe("a second HBase catalog") {
    it("keeps its own tables, which join and copy with the first catalog's") {
      withConf(
        "spark.sql.catalog.other" -> classOf[connector.HBaseSparkCatalog].getName,
        "spark.sql.catalog.other.catalogTable" -> "spark_hbase_sql:other_catalog"
      ) {
        val t = table()
        val copy = uniqueName("copy")
        sql(s"CREATE TABLE other.$copy (k INT, s STRING, v INT, PRIMARY KEY (k, s)) MAPPED BY ($copy, COLS=[v=f.v])")
        rows(s"SHOW TABLES IN other LIKE '$copy'") shouldBe Seq(Row("other", copy, false))
        rows(s"SHOW TABLES IN hbase LIKE '$copy'") shouldBe Nil
        sql(s"INSERT INTO hbase.$t VALUES (1, 'a', 10), (2, 'b', 20)")
        sql(s"INSERT INTO other.$copy SELECT k, s, v * 2 FROM hbase.$t")
        rows(s"SELECT a.k, a.v, b.v FROM hbase.$t a JOIN other.$copy b USING (k, s) ORDER BY a.k") shouldBe
          Seq(Row(1, 10, 20), Row(2, 20, 40))
        sql(s"DROP TABLE other.$copy")
      }
    }
  }
}
