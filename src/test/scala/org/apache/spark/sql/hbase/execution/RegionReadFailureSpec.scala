// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.io.{InterruptedIOException, IOException, UncheckedIOException}

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.planner.RegionInfo

class RegionReadFailureSpec extends AnyFunSpec with Matchers {
  private val table = HBaseTableName("default", "readings")
  private val region = RegionInfo(Array[Byte](1), Array[Byte](2), Some("rs3.example.com"), Some(16020))

  /** Rows 0 until `rows`, then `failure` when asked for more, as an HBase scanner's iterator fails. */
  private def failingAfter(rows: Int, failure: Throwable): Iterator[Int] = new Iterator[Int] {
    private var returned = 0
    override def hasNext: Boolean = returned < rows || (throw failure)
    override def next(): Int = { returned += 1; returned - 1 }
  }

  describe("a region's read that HBase gives up on") {
    it("keeps the rows read before, then fails naming the table, the region and what to do") {
      val cause = new IOException("Failed after attempts=3", new java.net.ConnectException("Connection refused"))
      val rows = RegionReadFailure.translating(table, region)(failingAfter(2, new UncheckedIOException(cause)))
      rows.next() shouldBe 0
      rows.next() shouldBe 1
      val error = intercept[HBaseSQLException](rows.hasNext)
      error.getMessage should startWith(
        "HBase table readings: reading region [\\x01, \\x02) from region server rs3.example.com:16020 failed: " +
          "Connection refused."
      )
      error.getMessage should include("run the statement again")
      error.getCause.getCause shouldBe cause
    }

    it("fails the same way when the region's scanner cannot even be opened") {
      val cause = new IOException("Failed after attempts=3", new java.net.ConnectException("Connection refused"))
      val rows = RegionReadFailure.translating(table, region)(throw cause)
      intercept[HBaseSQLException](rows.hasNext).getMessage should
        startWith("HBase table readings: reading region [\\x01, \\x02) from region server rs3.example.com:16020 failed")
    }

    it("says that HBase denied the read, in HBase's words, when its AccessController did") {
      val denied = new org.apache.hadoop.hbase.security.AccessDeniedException(
        "Insufficient permissions for user 'bob' (table=readings, action=READ)"
      )
      val error = intercept[HBaseSQLException](
        RegionReadFailure.translating(table, region)(throw new IOException("Failed after attempts=1", denied)).hasNext
      )
      error.getMessage should startWith("HBase denied access reading table readings: " +
        "Insufficient permissions for user 'bob' (table=readings, action=READ). An HBase administrator grants rights")
    }

    it("fails naming the region server when it did not answer in time, though a timeout is an InterruptedIOException") {
      val timedOut = new IOException(
        "Failed after attempts=16",
        new java.net.SocketTimeoutException("callTimeout=60000, callDuration=60163")
      )
      val error = intercept[HBaseSQLException](
        RegionReadFailure.translating(table, region)(failingAfter(0, new UncheckedIOException(timedOut))).hasNext
      )
      error.getMessage should startWith(
        "HBase table readings: reading region [\\x01, \\x02) from region server rs3.example.com:16020 failed: " +
          "callTimeout=60000, callDuration=60163. If the region server was down, restarting or not answering"
      )
    }

    it("leaves a task Spark interrupted, and errors that are not HBase's, as they are") {
      val interrupted = new UncheckedIOException(new InterruptedIOException("interrupted"))
      intercept[UncheckedIOException](RegionReadFailure.translating(
        table,
        region
      )(failingAfter(0, interrupted)).hasNext) shouldBe
        interrupted
      val bug = new IllegalStateException("a bug of ours")
      intercept[IllegalStateException](RegionReadFailure.translating(
        table,
        region
      )(failingAfter(0, bug)).hasNext) shouldBe bug
    }
  }
}
