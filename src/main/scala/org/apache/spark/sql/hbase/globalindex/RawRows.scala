// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Connection, Result, Scan}

import org.apache.spark.TaskContext

/**
 * The rows of a key range as HBase holds them, undecoded: what an index build, its sample and a
 * check read, each row a `Result` of only the cells they name.
 */
object RawRows {

  /**
   * Hands each row of `table` in [start, stop) to `f`, with only the cells `reads` names (all
   * when none), at most `limit` rows when given; the scanner and the table are closed after.
   */
  def foreach(
      connection: Connection,
      table: TableName,
      start: Array[Byte],
      stop: Array[Byte],
      reads: Seq[(Array[Byte], Array[Byte])],
      limit: Option[Int] = None
  )(f: Result => Unit): Unit = {
    val htable = connection.getTable(table)
    try {
      val scanner = htable.getScanner(scan(start, stop, reads, limit))
      try scanner.iterator().asScala.foreach(f)
      finally scanner.close()
    } finally htable.close()
  }

  /**
   * The rows [[foreach]] hands over, as an iterator a Spark task reads: the scanner and the table
   * are closed once it has been read to the end, or when `task` ends, whichever comes first.
   */
  def iterator(
      connection: Connection,
      table: TableName,
      start: Array[Byte],
      stop: Array[Byte],
      reads: Seq[(Array[Byte], Array[Byte])],
      task: TaskContext
  ): Iterator[Result] = {
    val htable = connection.getTable(table)
    val scanner =
      try htable.getScanner(scan(start, stop, reads, None))
      catch { case e: Throwable => htable.close(); throw e }
    var open = true
    def close(): Unit = if (open) {
      open = false
      try scanner.close()
      finally htable.close()
    }
    task.addTaskCompletionListener[Unit](_ => close())
    val rows = scanner.iterator().asScala
    new Iterator[Result] {
      override def hasNext: Boolean = open && (rows.hasNext || { close(); false })
      override def next(): Result = rows.next()
    }
  }

  private def scan(
      start: Array[Byte],
      stop: Array[Byte],
      reads: Seq[(Array[Byte], Array[Byte])],
      limit: Option[Int]
  ): Scan = {
    val scan = new Scan().withStartRow(start).withStopRow(stop).setCaching(1000)
    reads.foreach { case (family, qualifier) => scan.addColumn(family, qualifier) }
    limit.foreach(scan.setLimit)
    scan
  }
}
