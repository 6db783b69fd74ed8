// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.codec.RowRange

/**
 * One region of a table: rows in [startKey, endKey); an empty key means the table's edge. `host`
 * is where Spark would rather read it; `port`, with it, names its region server in errors, and
 * `startCode` (when that server started) tells a restarted server from the one before.
 */
final case class RegionInfo(
    startKey: Array[Byte],
    endKey: Array[Byte],
    host: Option[String],
    port: Option[Int] = None,
    startCode: Option[Long] = None
) {
  def overlaps(range: RowRange): Boolean = (endKey.isEmpty || Bytes.compareTo(range.start, endKey) < 0) &&
    (range.stop.isEmpty || Bytes.compareTo(startKey, range.stop) < 0)

  /** Its rows, as [start, end). */
  def rangeString: String = s"[${Bytes.toStringBinary(startKey)}, ${Bytes.toStringBinary(endKey)})"

  /** Its region server, as far as known. */
  def server: String = s"${host.getOrElse("?")}${port.fold("")(p => s":$p")}"

  /** Its region server as one server process: host, port and start code, as far as known. */
  def serverName: String = RegionInfo.serverName(host.getOrElse("?"), port.getOrElse(-1), startCode.getOrElse(-1L))

  override def toString: String =
    s"$rangeString@$server"
}

object RegionInfo {
  def serverName(host: String, port: Int, startCode: Long): String =
    s"${host.toLowerCase(java.util.Locale.ROOT)},$port,$startCode"
}
