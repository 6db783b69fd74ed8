// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.io.{InterruptedIOException, IOException, UncheckedIOException}
import java.net.SocketTimeoutException

import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.connection.HBaseAccessDenied
import org.apache.spark.sql.hbase.planner.RegionInfo

/**
 * A region's read that HBase gave up on (its region server down longer than the client's
 * retries last, say) fails with an error that names the table and the region, rather than with
 * the HBase client's innermost exception; one that HBase refused is said as such. A task killed
 * by Spark is not HBase's failure.
 */
object RegionReadFailure {

  /** `rows`, made on first use, with HBase's failures in making or reading them translated. */
  def translating[T](table: HBaseTableName, region: RegionInfo)(rows: => Iterator[T]): Iterator[T] = new Iterator[T] {
    private lazy val underlying = translate(rows)
    override def hasNext: Boolean = translate(underlying.hasNext)
    override def next(): T = translate(underlying.next())

    private def translate[R](step: => R): R =
      try step
      catch HBaseAccessDenied.translate(Some(s"reading table $table")).orElse[Throwable, Nothing] {
          case e @ (_: IOException | _: UncheckedIOException) if !interrupted(e) => throw error(table, region, e)
        }
  }

  def error(table: HBaseTableName, region: RegionInfo, cause: Throwable): HBaseSQLException =
    new HBaseSQLException(
      s"HBase table $table: reading region ${region.rangeString} from region server ${region.server} failed: " +
        s"${Causes.rootMessage(cause)}. If the region server was down, restarting or not answering, run the " +
        "statement again once HBase serves the region; spark.hbase.client.retries.number, spark.hbase.client.pause, " +
        "spark.hbase.client.scanner.timeout.period and spark.hbase.rpc.timeout bound how long the HBase client " +
        "waits and retries first.",
      Some(cause)
    )

  /**
   * A task Spark killed, rather than HBase's failure. A call to a region server that did not
   * answer in time is HBase's failure, though its SocketTimeoutException is an
   * InterruptedIOException too.
   */
  private def interrupted(e: Throwable): Boolean =
    Causes.of(e).exists(c => c.isInstanceOf[InterruptedIOException] && !c.isInstanceOf[SocketTimeoutException])
}
