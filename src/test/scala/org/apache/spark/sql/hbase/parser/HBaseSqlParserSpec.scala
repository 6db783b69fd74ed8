// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.parser

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.parser.ParseException
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.{ExtendedMode, FormattedMode, SimpleMode, SparkSqlParser}
import org.apache.spark.sql.execution.command.ExplainCommand
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseTableName, TableFormat}
import org.apache.spark.sql.hbase.commands._
import org.apache.spark.sql.hbase.connector.HBaseTableIdent
import org.apache.spark.sql.types._

class HBaseSqlParserSpec extends AnyFunSpec with Matchers {
  private val spark = new SparkSqlParser()
  private val parser = new HBaseSqlParser(spark)

  /** Plans compared as text, with expression ids masked: each parse numbers attributes anew. */
  private def same(plan: LogicalPlan): String = plan.toString.replaceAll("#\\d+", "#_")

  private def create(sql: String): CreateHBaseTableCommand = parser.parsePlan(sql) match {
    case c: CreateHBaseTableCommand => c
    case other => fail(s"expected CreateHBaseTableCommand, got ${other.getClass.getSimpleName}")
  }

  describe("CREATE TABLE ... MAPPED BY") {
    it("builds the table definition: columns, key order, cell mapping and format") {
      val cmd = create(
        """CREATE TABLE sales (region STRING, day DATE, amount DECIMAL(12,2), note STRING NOT NULL,
          |  PRIMARY KEY (day, region))
          |MAPPED BY (ns:sales_raw, COLS=[amount=f.amt, note=g.n])""".stripMargin
      )
      val table = cmd.definition
      table.name shouldBe "sales"
      table.hbaseTable shouldBe HBaseTableName("ns", "sales_raw")
      table.keyColumns shouldBe Seq("day", "region")
      table.columns.map(c => c.name -> c.dataType) shouldBe Seq(
        "region" -> StringType,
        "day" -> DateType,
        "amount" -> DecimalType(12, 2),
        "note" -> StringType
      )
      table.column("amount").cell shouldBe Some(CellRef("f", "amt"))
      table.column("note").nullable shouldBe false
      table.column("amount").nullable shouldBe true
      table.keys.map(_.nullable) shouldBe Seq(false, false)
      table.families shouldBe Seq("f", "g")
      table.format shouldBe TableFormat.Binary
      cmd.ifNotExists shouldBe false
    }

    it("accepts lower-case keywords, IF NOT EXISTS, back-quoted names, a quoted HBase name and IN StringFormat") {
      val cmd = create(
        "create table if not exists `my table` (`key` int, `v-1` string, primary key (`key`)) " +
          "mapped by ('other_ns:raw.table', cols=[`v-1`=cf.`q:1`]) in StringFormat;"
      )
      cmd.ifNotExists shouldBe true
      cmd.definition.name shouldBe "my table"
      cmd.definition.hbaseTable shouldBe HBaseTableName("other_ns", "raw.table")
      cmd.definition.column("v-1").cell shouldBe Some(CellRef("cf", "q:1"))
      cmd.definition.format shouldBe TableFormat.StringFormat("|")
      create("CREATE TABLE t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (t, COLS=[v=f.v]) IN StringFormat DELIMITER ':'")
        .definition.format shouldBe TableFormat.StringFormat(":")
    }

    it("reports a syntax error in its own grammar, with the position, instead of passing it to Spark") {
      val e = intercept[ParseException](parser.parsePlan(
        "CREATE TABLE t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (ht COLS=[v=f.v])"
      ))
      e.getMessage should include("COLS")
      e.getMessage should include("line 1")
    }

    it("names the column at fault when the definition is inconsistent") {
      def error(sql: String) = intercept[HBaseSQLException](parser.parsePlan(sql)).getMessage
      error("CREATE TABLE t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[k=f.k, v=f.v])") should
        include("key column 'k'")
      error("CREATE TABLE t (k INT, v INT, w INT, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[v=f.v])") should
        include("column 'w'")
      error("CREATE TABLE t (k INT, v INT, v STRING, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[v=f.v])") should
        include("column 'v' is defined more than once")
      error("CREATE TABLE t (k INT, v INT, w INT, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[v=f.q, w=f.q])") should
        include("share the cell f.q")
      error("CREATE TABLE t (k INT, v INT, PRIMARY KEY (x)) MAPPED BY (ht, COLS=[v=f.v])") should
        include("PRIMARY KEY column 'x'")
      error("CREATE TABLE t (k INT, v INT) MAPPED BY (ht, COLS=[v=f.v])") should include("PRIMARY KEY")
      error("CREATE TABLE t (k INT, v ARRAY<INT>, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[v=f.v])") should
        include("column 'v' has unsupported type")
    }

    it("names an unknown column type") {
      val e = intercept[HBaseSQLException](parser.parsePlan(
        "CREATE TABLE t (k INT, v NUMBERISH, PRIMARY KEY (k)) MAPPED BY (ht, COLS=[v=f.v])"
      ))
      e.getMessage should include("Unknown type 'NUMBERISH' for column 'v'")
      e.getMessage should include("line 1 pos 25")
    }
  }

  describe("statements that may name an HBase table") {
    it("leaves DROP TABLE, SHOW TABLES and DESCRIBE to Spark's parser, to be resolved through the catalogs") {
      Seq("DROP TABLE t", "drop table if exists t", "SHOW TABLES LIKE 'sa*'", "DESC t").foreach { sql =>
        same(parser.parsePlan(sql)) shouldBe same(spark.parsePlan(sql))
      }
    }

    it("leaves names with a Spark database to Spark") {
      Seq("DROP TABLE db.t", "DESCRIBE TABLE db.t").foreach { sql =>
        same(parser.parsePlan(sql)) shouldBe same(spark.parsePlan(sql))
      }
    }

    it(
      "keeps Spark's plan of ALTER TABLE ... DROP COLUMN for when the first part of the name is not an HBase catalog"
    ) {
      // Only the session knows its catalogs, so the command decides when it runs.
      val sql = "ALTER TABLE db.t DROP COLUMN c"
      parser.parsePlan(sql) match {
        case DropHBaseColumnCommand(table, column, sparkPlan) =>
          (table, column) shouldBe (Seq("db", "t"), "c")
          same(sparkPlan) shouldBe same(spark.parsePlan(sql))
        case other => fail(s"expected DropHBaseColumnCommand, got $other")
      }
    }
  }

  describe("every other statement") {
    it("is parsed by Spark's parser, unchanged") {
      Seq(
        "SELECT a, count(*) FROM t WHERE b > 1 GROUP BY a",
        "CREATE TABLE p (a INT) USING parquet",
        "INSERT INTO t VALUES (1, 'x'), (2, 'y')",
        "SHOW TABLES IN db",
        "DESCRIBE FUNCTION upper",
        "select '`odd', \"MAPPED BY\" from t -- MAPPED BY",
        "WITH x AS (SELECT 1) SELECT * FROM x"
      ).foreach { sql =>
        same(parser.parsePlan(sql)) shouldBe same(spark.parsePlan(sql))
      }
    }

    it("keeps Spark's own error for Spark statements") {
      val ours = intercept[ParseException](parser.parsePlan("SELEC 1"))
      val theirs = intercept[ParseException](spark.parsePlan("SELEC 1"))
      ours.getMessage shouldBe theirs.getMessage
    }
  }

  describe("EXPLAIN") {
    it("of one of our statements is Spark's EXPLAIN of our plan, in each of Spark's modes") {
      val create = "CREATE TABLE t (k INT, v STRING, PRIMARY KEY (k)) MAPPED BY (t, COLS=[v=f.v])"
      parser.parsePlan(s"EXPLAIN $create") shouldBe ExplainCommand(parser.parsePlan(create), SimpleMode)
      parser.parsePlan(s"explain formatted\n$create") shouldBe ExplainCommand(parser.parsePlan(create), FormattedMode)
      parser.parsePlan(s" EXPLAIN EXTENDED $create") shouldBe ExplainCommand(parser.parsePlan(create), ExtendedMode)
      parser.parsePlan("EXPLAIN CHECK INDEX i ON t") shouldBe
        ExplainCommand(CheckGlobalIndexCommand(HBaseTableIdent(None, "t"), "i", repair = false), SimpleMode)
      // Our grammar's error, as without EXPLAIN, at its place in the text.
      val bad = "CREATE TABLE t (k INT) MAPPED BY t"
      intercept[ParseException](parser.parsePlan(bad)).getMessage should include("missing '(' at 't'")
      intercept[ParseException](parser.parsePlan(bad)).getMessage should include("(line 1, pos 33)")
      val explained = intercept[ParseException](parser.parsePlan(s"EXPLAIN FORMATTED\n$bad")).getMessage
      explained should include("missing '(' at 't'")
      explained should include("(line 2, pos 33)")
    }

    it("of any other statement is Spark's") {
      Seq("EXPLAIN SELECT 1", "EXPLAIN FORMATTED CREATE TABLE p (a INT) USING parquet", "EXPLAIN COST SHOW TABLES")
        .foreach(sql => same(parser.parsePlan(sql)) shouldBe same(spark.parsePlan(sql)))
    }
  }

  describe("LOAD DATA") {
    it("reads every clause: PARALLEL, LOCAL, OVERWRITE, FIELDS TERMINATED BY and OPTIONS") {
      parser.parsePlan(
        """LOAD DATA PARALLEL LOCAL INPATH '/tmp/a b.csv' INTO TABLE t FIELDS TERMINATED BY '|'
          |OPTIONS (header 'true', 'nullValue' = 'NA', onBadRow 'skip')""".stripMargin
      ) match {
        case LoadDataCommand(Seq(name), path, local, parallel, overwrite, delimiter, options, _) =>
          (name, path, local, parallel, overwrite, delimiter) shouldBe
            ("t", "/tmp/a b.csv", true, true, false, Some("|"))
          options shouldBe Map("header" -> "true", "nullValue" -> "NA", "onBadRow" -> "skip")
        case other => fail(s"expected LoadDataCommand, got $other")
      }
      parser.parsePlan("load data inpath 'p' overwrite into table t") match {
        case c: LoadDataCommand => (c.local, c.parallel, c.overwrite, c.delimiter, c.options) shouldBe
            (false, false, true, None, Map())
        case other => fail(s"expected LoadDataCommand, got $other")
      }
    }

    it("keeps Spark's plan of LOAD DATA into a two-part name, and leaves LOAD DATA with PARTITION to Spark") {
      val twoPart = "LOAD DATA INPATH 'p' INTO TABLE db.t"
      parser.parsePlan(twoPart) match {
        case c: LoadDataCommand =>
          c.table shouldBe Seq("db", "t")
          c.sparkPlan.map(same) shouldBe Some(same(spark.parsePlan(twoPart)))
        case other => fail(s"expected LoadDataCommand, got $other")
      }
      val partitioned = "LOAD DATA INPATH 'p' INTO TABLE t PARTITION (d = 1)"
      same(parser.parsePlan(partitioned)) shouldBe same(spark.parsePlan(partitioned))
    }

    it("refuses an option given twice") {
      intercept[HBaseSQLException](
        parser.parsePlan("LOAD DATA INPATH 'p' INTO TABLE t OPTIONS (header 'true', HEADER 'false')")
      )
        .getMessage should include("option 'header' is given more than once")
    }
  }

  describe("CHECK INDEX") {
    it("names the index and the table, with or without TABLE, and reads REPAIR") {
      parser.parsePlan("CHECK INDEX by_email ON TABLE users") shouldBe
        CheckGlobalIndexCommand(HBaseTableIdent(None, "users"), "by_email", repair = false)
      parser.parsePlan("check index `by email` on hbase.users repair") shouldBe
        CheckGlobalIndexCommand(HBaseTableIdent(Some("hbase"), "users"), "by email", repair = true)
      intercept[org.apache.spark.sql.catalyst.parser.ParseException](parser.parsePlan("CHECK INDEX ON users"))
    }
  }

  describe("Phoenix's spellings") {
    val spark = new SparkSqlParser()
    it("reads INDEX(t i1 i2) as Spark's INDEX(t, i1, i2), and leaves any statement Spark parses as it is") {
      parser.parsePlan("SELECT /*+ INDEX(users by_email) */ * FROM users WHERE email = 'a'") shouldBe
        spark.parsePlan("SELECT /*+ INDEX(users, by_email) */ * FROM users WHERE email = 'a'")
      parser.parsePlan("select /*+ index(u by_email by_age), NO_INDEX(o) */ * FROM users u JOIN o") shouldBe
        spark.parsePlan("select /*+ index(u, by_email, by_age), NO_INDEX(o) */ * FROM users u JOIN o")
      val quoted = "SELECT * FROM users WHERE note = '/*+ INDEX(a b) */'"
      parser.parsePlan(quoted) shouldBe spark.parsePlan(quoted)
    }

    it("reads CREATE INDEX ... INCLUDE (a, b) as a covered global index") {
      parser.parsePlan("CREATE INDEX by_email ON users (email) INCLUDE (name, `city`)") shouldBe
        spark.parsePlan("CREATE INDEX by_email ON TABLE users USING global (email) OPTIONS (include 'name, city')")
      parser.parsePlan("create index if not exists i on table hbase.users(a, b) include(c);") shouldBe
        spark.parsePlan("CREATE INDEX IF NOT EXISTS i ON TABLE hbase.users USING global (a, b) OPTIONS (include 'c')")
    }

    it("gives Spark's own error, about the statement as written, for a statement that is wrong elsewhere") {
      val wrong = "SELECT /*+ INDEX(users by_email) */ * FROM users WHERE email ="
      val error = intercept[ParseException](parser.parsePlan(wrong)).getMessage
      error should include(wrong)
      error should include("extra input 'by_email'")
    }
  }

  describe("statements that cannot be ours") {
    it("are told by their first word, without our grammar; anything else still goes through it") {
      HBaseSqlParser.mayBeOurs("SELECT * FROM t") shouldBe false
      HBaseSqlParser.mayBeOurs(" \n\tinsert INTO t VALUES (1)") shouldBe false
      HBaseSqlParser.mayBeOurs("CREATED_AT") shouldBe false
      HBaseSqlParser.mayBeOurs("WITH x AS (SELECT 1) SELECT * FROM x") shouldBe false
      for (
        ours <- Seq(
          "create TABLE t",
          "\n  Alter TABLE t",
          "SHOW INDEXES ON t",
          "load DATA",
          "check INDEX i ON t",
          "-- a comment\nSELECT 1",
          "/* c */ CREATE TABLE t",
          "(SELECT 1)",
          "",
          "  ",
          "`t`",
          "é"
        )
      ) withClue(ours)(HBaseSqlParser.mayBeOurs(ours) shouldBe true)
    }

    it("parse as before, and ours after a comment or in lower case are still ours") {
      parser.parsePlan("SELECT 1") shouldBe a[org.apache.spark.sql.catalyst.plans.logical.Project]
      create("-- first\n/* then */ create table t (k INT, PRIMARY KEY (k)) mapped by (t)").definition.name shouldBe "t"
      // Reported against our grammar, which expects a column mapping there.
      intercept[ParseException](parser.parsePlan("-- x\nCREATE TABLE t (k INT) MAPPED BY (t, COLS=[")).getMessage should
        include("'MAPPED'")
    }
  }
}
