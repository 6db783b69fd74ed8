// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Connection, Result, Scan}

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

  /** The scan of the rows [[foreach]] hands over: of `start` to `stop`, only the cells `reads` names. */
  def scan(
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
