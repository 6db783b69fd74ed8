// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.hadoop.hbase.client.Result

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.Causes
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.planner.RegionScan
import org.apache.spark.sql.hbase.facts.WireRefusal

/**
 * A region read through the server jar that goes on without it when the region server refuses
 * the jar's bytes (it has no jar, or reads no such wire version), at the start or in the middle
 * of the read, as when the region moves to such a server: the rest of the region, after the last
 * row a Result covered (before it, for a `reversed` read), is read by `without`, once. Scans and
 * aggregates share it.
 *
 * @param withServer the read through the jar, given what to call with each Result it takes
 * @param without    the read of the rest of the region without the jar (its ranges may be empty)
 */
final class ServerJarFallback[T](
    table: HBaseTableName,
    region: RegionScan,
    what: String,
    withServer: (Result => Unit) => Iterator[T],
    without: RegionScan => Iterator[T],
    reversed: Boolean = false
) extends Iterator[T]
    with Logging {
  // The row key is only needed on a fallback, so the hot path keeps the Result, not a copy of its key.
  private var lastResult: Result = _
  private var rows: Iterator[T] = Iterator(()).flatMap(_ => withServer(r => lastResult = r))
  private var fellBack = false

  private def orFallBack[A](step: => A): A =
    try step
    catch {
      case e: Exception if !fellBack && WireRefusal.of(e) =>
        fellBack = true
        val rest =
          if (lastResult == null) region
          else if (reversed) region.before(lastResult.getRow)
          else region.after(lastResult.getRow)
        logWarning(s"HBase table $table: the region server holding ${region.region} cannot run the server " +
          s"jar's $what (${Causes.rootMessage(e)}); reading the rest of the region without it. See " +
          "'Deploying the server jar' in docs/deployment.md.")
        rows = if (rest.ranges.isEmpty) Iterator.empty else without(rest)
        step
    }

  override def hasNext: Boolean = orFallBack(rows.hasNext)
  override def next(): T = orFallBack(rows.next())
}
