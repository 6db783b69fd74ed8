// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import org.apache.hadoop.hbase.client.{Put, RetriesExhaustedWithDetailsException, Row}
import org.apache.hadoop.hbase.security.AccessDeniedException
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException

class HBaseAccessDeniedSpec extends AnyFunSpec with Matchers {
  private val createDenied = new AccessDeniedException(
    "Insufficient permissions (user=bob@EXAMPLE.COM, scope=default:sales, params=[table=default:sales,],action=CREATE)"
  )

  describe("an access HBase's AccessController denies") {
    it("is found among the causes and said in HBase's words, with what to do") {
      val error = intercept[HBaseSQLException](HBaseAccessDenied.translate()(new java.io.IOException(
        "call failed",
        createDenied
      )))
      error.getMessage should startWith("HBase denied access: Insufficient permissions (user=bob@EXAMPLE.COM, " +
        "scope=default:sales, params=[table=default:sales,],action=CREATE). An HBase administrator grants rights")
      error.getMessage should include("spark_hbase_sql:catalog")
    }

    it("is found in a failed batch of writes, which keeps each row's failure apart from its cause") {
      val writeDenied = new AccessDeniedException("Insufficient permissions for user 'bob' (table=sales, action=WRITE)")
      val batch = new RetriesExhaustedWithDetailsException(
        java.util.List.of[Throwable](writeDenied),
        java.util.List.of[Row](new Put(Array[Byte](1))),
        java.util.List.of("rs1:16020")
      )
      HBaseAccessDenied.message(batch) shouldBe
        Some("Insufficient permissions for user 'bob' (table=sales, action=WRITE)")
    }

    it("is found by name when it comes wrapped as text") {
      HBaseAccessDenied.message(new java.io.IOException(
        "org.apache.hadoop.hbase.security.AccessDeniedException: Insufficient permissions for user 'bob' (table=t, action=READ)\nmore"
      )) shouldBe
        Some("Insufficient permissions for user 'bob' (table=t, action=READ)")
    }

    it("is not claimed for other failures") {
      HBaseAccessDenied.message(new java.io.IOException("Connection refused")) shouldBe None
      HBaseAccessDenied.translate().isDefinedAt(new java.io.IOException("Connection refused")) shouldBe false
    }
  }
}
