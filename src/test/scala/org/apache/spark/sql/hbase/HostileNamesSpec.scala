// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.apache.hadoop.hbase.{CellUtil, NamespaceDescriptor, NamespaceExistException, TableName}
import org.apache.hadoop.hbase.client.Get

import org.apache.spark.sql.Row
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.execution.ScanMetrics
import org.apache.spark.sql.types.IntegerType
import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}

/**
 * Names with spaces, quotes, backticks, unicode and SQL keywords, quoted as Spark quotes them:
 * each works end to end, or CREATE TABLE refuses it naming it and why, leaving nothing behind.
 */
class HostileNamesSpec extends HBaseSuite {

  /** Every name a table has; the HBase ones are legal in HBase. */
  private case class Names(
      table: String,
      key: String,
      column: String,
      namespace: Option[String],
      hbaseTable: String,
      family: String,
      qualifier: String
  )

  private def q(name: String): String = "`" + name.replace("`", "``") + "`"

  private val working: Seq[(String, Names)] = Seq(
    "spaces" -> Names("my table", "the key", "a value", None, "spaces", "my fam", "my qual"),
    "single quotes" -> Names("it's", "o'clock", "rock'n'roll", None, "quotes", "f'", "q'"),
    "double quotes" -> Names("say \"hi\"", "\"k\"", "\"v\"", None, "dquotes", "\"f\"", "\"q\""),
    "backticks" -> Names("a`b", "c`d", "`v`", None, "backticks", "f`", "`q"),
    "unicode" -> Names("größe", "数量", "😀 emoji", Some("größe_ns"), "größe_数量", "größe", "数量😀"),
    "SQL keywords" -> Names("select", "key", "from", Some("table"), "order", "select", "where"),
    "keywords as our grammar's" -> Names("mapped", "primary", "cols", None, "by", "families", "split")
  )

  private def ensureNamespace(namespace: String): Unit = withAdmin { admin =>
    try admin.createNamespace(NamespaceDescriptor.create(namespace).build())
    catch { case _: NamespaceExistException => }
  }

  describe("a table whose every name is hostile") {
    for ((what, n) <- working; layout <- Seq("PACKED", "CELLS")) {
      it(s"works end to end with $what, LAYOUT $layout") {
        val suffix = uniqueName("")
        val names = n.copy(table = n.table + suffix, hbaseTable = n.hbaseTable + suffix)
        val Names(table, key, column, namespace, hbaseTable, family, qualifier) = names
        namespace.foreach(ensureNamespace)
        val htable = namespace.fold(q(hbaseTable))(ns => s"${q(ns)}:${q(hbaseTable)}")
        val (t, k, v, added) = (q(table), q(key), q(column), q(column + " 2"))
        sql(s"CREATE TABLE $t ($k INT, $v STRING, PRIMARY KEY ($k)) " +
          s"MAPPED BY ($htable, COLS=[$v=${q(family)}.${q(qualifier)}]) LAYOUT $layout")
        sql(s"INSERT INTO $t VALUES (1, 'a'), (2, 'b'), (3, 'c')")

        val keyed = sql(s"SELECT $v FROM $t WHERE $k = 2")
        keyed.collect().toSeq shouldBe Seq(Row("b"))
        ScanMetrics.of(keyed)("rowsScanned") shouldBe 1
        val explained = sql(s"EXPLAIN SELECT $v FROM hbase.$t WHERE $k > 1").collect().head.getString(0)
        explained should include(namespace.fold(hbaseTable)(ns => s"$ns:$hbaseTable"))

        // The cell is where the mapping says, under exactly these bytes; packed, in the family's one
        // cell, its slot kept under the qualifier's exact name.
        withTable(namespace.fold(hbaseTable)(ns => s"$ns:$hbaseTable")) { h =>
          val row = h.get(new Get(new BinaryKeyCodec(Seq(IntegerType)).encode(Seq(1))))
          if (layout == "CELLS") Utf8.string(row.getValue(Utf8.bytes(family), Utf8.bytes(qualifier))) shouldBe "a"
          else {
            row.rawCells().map(c => Utf8.string(CellUtil.cloneFamily(c)) -> c.getQualifierLength).toSeq shouldBe
              Seq(family -> 0)
            TableDefinitionStores.of(spark).get(table).get.packedSlots shouldBe Map(family -> Seq(qualifier))
          }
        }

        sql(s"ALTER TABLE $t ADD COLUMN $added INT MAPPED BY ($added = ${q(family)}.${q(qualifier + " 2")})")
        sql(s"INSERT INTO hbase.$t VALUES (4, 'd', 40)")
        sql(s"SELECT $v, $added FROM hbase.default.$t WHERE $k = 4").collect().toSeq shouldBe Seq(Row("d", 40))
        sql(s"UPDATE hbase.$t SET $added = 30 WHERE $k = 3")

        val index = q(s"by $column")
        sql(s"CREATE INDEX $index ON $t ($added) OPTIONS (chunkRows = 2)")
        sql(s"SHOW INDEXES ON $t").collect().map(_.getString(0)).toSeq shouldBe Seq(s"by $column")
        sql(s"SELECT $k FROM $t WHERE $added >= 30 ORDER BY $k").collect().toSeq shouldBe Seq(Row(3), Row(4))
        sql(s"DROP INDEX $index ON $t")

        val described = sql(s"DESCRIBE $t").collect().map(r => r.getString(0) -> (r.getString(1), r.getString(2))).toMap
        described(key) shouldBe ("int", "row key part 1 of 1; NOT NULL")
        described(column) shouldBe ("string", s"cell $family.$qualifier")
        described("HBase table")._1 shouldBe namespace.fold(hbaseTable)(ns => s"$ns:$hbaseTable")
        sql(s"DESCRIBE hbase.$t").collect().map(_.getString(0)) should contain(column + " 2")
        sql("SHOW TABLES IN hbase").collect().map(_.getString(1)) should contain(table)

        sql(s"ALTER TABLE hbase.$t DROP COLUMN $added")
        sql(s"DELETE FROM $t WHERE $k = 1")
        sql(s"SELECT * FROM hbase.$t ORDER BY $k").collect().toSeq shouldBe Seq(Row(2, "b"), Row(3, "c"), Row(4, "d"))

        sql(s"DROP TABLE hbase.$t")
        sql("SHOW TABLES IN hbase").collect().map(_.getString(1)) should not contain table
        withAdmin(_.tableExists(TableName.valueOf(namespace.getOrElse("default"), hbaseTable))) shouldBe true
      }
    }
  }

  /** A statement with a name HBase refuses, the name, and why. */
  private val refused: Seq[(String, String => String, String)] = Seq(
    (
      "a space in the HBase table",
      t => mapping(t, "`my table`"),
      "'my table' is not a legal HBase table name: HBase allows only letters, digits, '_', '-' and '.'; it has ' '"
    ),
    (
      "a quote in the HBase table",
      t => mapping(t, "`it's`"),
      "'it's' is not a legal HBase table name: HBase allows only letters, digits, '_', '-' and '.'; it has '''"
    ),
    (
      "a backtick in the HBase table",
      t => mapping(t, "`a``b`"),
      "'a`b' is not a legal HBase table name: HBase allows only letters, digits, '_', '-' and '.'; it has '`'"
    ),
    (
      "an emoji in the HBase table",
      t => mapping(t, "`t😀`"),
      "'t😀' is not a legal HBase table name: HBase allows only letters, digits, '_', '-' and '.'; it has '😀'"
    ),
    (
      "an HBase table starting with '-'",
      t => mapping(t, "'-t'"),
      "'-t' is not a legal HBase table name: it must not start with '-' or '.'"
    ),
    (
      "a space in the HBase namespace",
      t => mapping(t, "'my ns:t'"),
      "'my ns' is not a legal HBase namespace: HBase allows only letters, digits and '_'; it has ' '"
    ),
    (
      "a '-' in the HBase namespace",
      t => mapping(t, "`a-b`:`t`"),
      "'a-b' is not a legal HBase namespace: HBase allows only letters, digits and '_'; it has '-'"
    ),
    (
      "a colon in the family",
      t => mapping(t, "x", family = "`f:g`"),
      "column 'v': 'f:g' is not a legal HBase column family name: HBase forbids ':', '\\', '/' and control characters; it has ':'"
    ),
    (
      "a slash in the family",
      t => mapping(t, "x", family = "`f/g`"),
      "column 'v': 'f/g' is not a legal HBase column family name: HBase forbids ':', '\\', '/' and control characters; it has '/'"
    ),
    (
      "a family starting with '.'",
      t => mapping(t, "x", family = "`.f`"),
      "column 'v': '.f' is not a legal HBase column family name: it must not start with '.'"
    ),
    (
      "an empty family",
      t => mapping(t, "x", family = "``"),
      "column 'v': '' is not a legal HBase column family name: it is empty"
    ),
    (
      "HBase's own directory as a family",
      t => mapping(t, "x", family = "`recovered.edits`"),
      "column 'v': 'recovered.edits' is not a legal HBase column family name: Column Family name cannot be: recovered.edits"
    ),
    (
      "an empty qualifier",
      t => mapping(t, "x", qualifier = "``"),
      "column 'v': the empty column qualifier is the row marker cell's; map a column to a named qualifier"
    )
  )

  private def mapping(t: String, hbaseTable: String, family: String = "f", qualifier: String = "q"): String =
    s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($hbaseTable, COLS=[v=$family.$qualifier])"

  private def hbaseTables: Set[String] = withAdmin(_.listTableNames().map(_.getNameAsString).toSet)

  /**
   * A table another spec made: its name carries that spec's ([[uniqueName]]). `sbt test` runs
   * another JVM of specs beside this one (build.sbt), whose tables may appear at any time.
   */
  private def madeByAnotherSpec(table: String): Boolean =
    "_([a-z0-9]+spec)_[0-9]+_[0-9]+".r.findFirstMatchIn(table).exists(_.group(1) != "hostilenamesspec")

  describe("a name HBase does not allow") {
    refused.foreach { case (what, statement, why) =>
      it(s"is refused at CREATE TABLE, naming it and why, leaving nothing behind: $what") {
        val t = uniqueName("refused")
        val tablesBefore = hbaseTables
        intercept[HBaseSQLException](sql(statement(t))).getMessage shouldBe s"CREATE TABLE $t: $why"
        TableDefinitionStores.of(spark).get(t) shouldBe None
        val tablesAfter = hbaseTables
        (tablesAfter -- tablesBefore).filterNot(madeByAnotherSpec) shouldBe empty
        (tablesBefore -- tablesAfter).filterNot(madeByAnotherSpec) shouldBe empty
      }
    }

    it("is refused at ALTER TABLE ADD COLUMN too") {
      val t = uniqueName("refused")
      sql(mapping(t, t))
      intercept[HBaseSQLException](sql(s"ALTER TABLE $t ADD COLUMN w INT MAPPED BY (w = `f:g`.w)"))
        .getMessage shouldBe
        s"ALTER TABLE $t ADD COLUMN w: 'f:g' is not a legal HBase column family name: " +
        "HBase forbids ':', '\\', '/' and control characters; it has ':'"
      sql(s"DESCRIBE $t").collect().map(_.getString(0)) should not contain "w"
      sql(s"DROP TABLE $t")
    }
  }
}
