// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import java.sql.Types

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.types._

class HBaseCatalogListingSpec extends AnyFunSpec with Matchers {
  private def matches(pattern: String, name: String) = HBaseCatalogListing.like(pattern).matcher(name).matches()

  describe("a JDBC name pattern") {
    it("matches every name when absent or empty, as JDBC's null does") {
      Seq(null, "").foreach(p => matches(p, "orders") shouldBe true)
    }

    it("is SQL LIKE: % any run, _ one character, case-insensitive") {
      matches("ord%", "ORDERS") shouldBe true
      matches("t_", "t1") shouldBe true
      matches("t_", "t12") shouldBe false
      matches("%s", "orders") shouldBe true
      matches("orders", "order") shouldBe false
    }

    it("takes regex characters and escaped wildcards literally") {
      matches("a.b", "axb") shouldBe false
      matches("a.b", "a.b") shouldBe true
      matches("""t\_1""", "t_1") shouldBe true
      matches("""t\_1""", "tx1") shouldBe false
      matches("(x)+", "(x)+") shouldBe true
    }
  }

  describe("a column as getColumns describes it") {
    it("has JDBC's type code, size, digits and radix for its SQL type") {
      val row = JdbcColumns.row("hbase", "t", StructField("price", DecimalType(12, 2), nullable = true), 3)
      row(4) shouldBe Types.DECIMAL
      row(5) shouldBe "DECIMAL(12,2)"
      (row(6), row(8), row(9)) shouldBe ((12, 2, 10))
      (row(10), row(16), row(17)) shouldBe ((java.sql.DatabaseMetaData.columnNullable, 3, "YES"))
    }

    it("says NOT NULL and carries the column's comment as its remarks") {
      val field = StructField("k", IntegerType, nullable = false).withComment("row key, part 1 of 2")
      val row = JdbcColumns.row("hbase", "t", field, 1)
      (row(4), row(5), row(11), row(17)) shouldBe ((Types.INTEGER, "INT", "row key, part 1 of 2", "NO"))
    }

    it("maps each of Spark's types to its JDBC type") {
      Seq(
        BooleanType -> Types.BOOLEAN,
        ByteType -> Types.TINYINT,
        ShortType -> Types.SMALLINT,
        LongType -> Types.BIGINT,
        FloatType -> Types.FLOAT,
        DoubleType -> Types.DOUBLE,
        StringType -> Types.VARCHAR,
        BinaryType -> Types.BINARY,
        DateType -> Types.DATE,
        TimestampType -> Types.TIMESTAMP,
        TimestampNTZType -> Types.TIMESTAMP,
        ArrayType(IntegerType) -> Types.ARRAY,
        MapType(StringType, IntegerType) -> Types.JAVA_OBJECT,
        new StructType().add("a", IntegerType) -> Types.STRUCT
      ).foreach { case (t, code) => withClue(t.sql)(JdbcColumns.typeCode(t) shouldBe code) }
    }
  }
}
