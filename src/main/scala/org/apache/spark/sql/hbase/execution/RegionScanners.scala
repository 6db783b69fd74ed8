// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{ResultScanner, Scan, Table}

import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.planner.ScanRequest

/**
 * What every region read opens, on the cluster's shared connection, and how it is closed: what a
 * read opens is given back by the close handed to `onClose`, and what it opened before a failure
 * to open the rest is given back before that failure goes on, so that a connection's borrowers
 * are counted right on every path.
 */
object RegionScanners {
  private val opened = new java.util.concurrent.atomic.AtomicInteger()

  /** Scanners this JVM's region reads have opened and not yet closed. */
  def openNow: Int = opened.get()

  /** The request's table; `onClose` receives what gives it and the connection back. */
  def table(request: ScanRequest, onClose: (() => Unit) => Unit): Table = {
    val (htable, giveBack) = borrowTable(request.cluster, tableOf(request))
    onClose(giveBack)
    htable
  }

  /**
   * A scanner of `scan` over the request's table; `onClose` receives what closes it (after
   * `closed` has seen it, for its metrics) and gives the table and the connection back.
   */
  def open(
      request: ScanRequest,
      scan: Scan,
      onClose: (() => Unit) => Unit,
      closed: ResultScanner => Unit = _ => ()
  ): ResultScanner = openOn(request.cluster, tableOf(request), scan, onClose, closed)

  /** [[open]] for a read planned without a request (an index build's read of a region's rows). */
  def openOn(
      cluster: HBaseClusterConf,
      table: TableName,
      scan: Scan,
      onClose: (() => Unit) => Unit,
      closed: ResultScanner => Unit = _ => ()
  ): ResultScanner = {
    val (htable, giveBack) = borrowTable(cluster, table)
    val scanner =
      try htable.getScanner(scan)
      catch { case e: Throwable => giveBack(); throw e }
    opened.incrementAndGet()
    onClose { () =>
      try { scanner.close(); closed(scanner) }
      finally { opened.decrementAndGet(); giveBack() }
    }
    scanner
  }

  private def tableOf(request: ScanRequest): TableName =
    TableName.valueOf(request.table.hbaseTable.namespace, request.table.hbaseTable.name)

  private def borrowTable(cluster: HBaseClusterConf, table: TableName): (Table, () => Unit) = {
    val connection = HBaseConnections.borrow(cluster)
    val htable =
      try connection.getTable(table)
      catch { case e: Throwable => HBaseConnections.release(cluster); throw e }
    (
      htable,
      () =>
        try htable.close()
        finally HBaseConnections.release(cluster)
    )
  }
}
