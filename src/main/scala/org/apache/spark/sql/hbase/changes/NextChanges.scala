// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import scala.collection.mutable

import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.execution.ReadMetrics

/**
 * How far the next read of changes goes, decided on the driver by a time-range scan of keys
 * (which reads no store file whose cells are all older than the read's start).
 */
object NextChanges {

  /**
   * The end of the next read after `read.from`: `read.to` when at most `maxRows` rows have a
   * write in between, else the place of the `maxRows`-th row's first write, so that the read
   * up to it returns exactly `maxRows` rows. None when no row has a write in between.
   */
  def end(read: ChangeRead, maxRows: Option[Int]): Option[ChangePosition] = measured(read, maxRows)._1

  /** [[end]], with the rows HBase looked at and the store file block bytes it read to find it. */
  def measured(read: ChangeRead, maxRows: Option[Int]): (Option[ChangePosition], Long, Long) = {
    val (metrics, blockBytes) = (ReadMetrics.local(), new SQLMetric("sum"))
    val end = if (!read.from.precedes(read.to)) None else endAfter(read, maxRows, metrics, blockBytes)
    (end, metrics.rowsScanned.value, blockBytes.value)
  }

  private def endAfter(read: ChangeRead, maxRows: Option[Int], metrics: ReadMetrics, blockBytes: SQLMetric)
      : Option[ChangePosition] = {
    val closes = mutable.ArrayBuffer.empty[() => Unit]
    try {
      val places = ChangedRows.firstPlaces(read, metrics, blockBytes, closes += _)
      maxRows match {
        case None => places.nextOption().map(_ => read.to)
        case Some(n) =>
          // The n earliest places, the latest of them on top.
          val earliest = mutable.PriorityQueue.empty[ChangePosition](ChangePosition.ordering)
          var count = 0L
          places.foreach { p =>
            count += 1
            earliest.enqueue(p)
            if (earliest.size > n) earliest.dequeue()
          }
          if (count == 0) None else if (count <= n) Some(read.to) else Some(earliest.head)
      }
    } finally closes.foreach(_())
  }
}
