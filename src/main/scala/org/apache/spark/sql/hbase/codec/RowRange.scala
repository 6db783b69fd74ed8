// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.hadoop.hbase.util.Bytes

/** Rows [start, stop) of an HBase table; an empty array is the table's open end. */
final case class RowRange(start: Array[Byte], stop: Array[Byte]) {
  def isEmpty: Boolean = stop.nonEmpty && Bytes.compareTo(start, stop) >= 0

  /** Holds one row key only: [k, k + 0x00). */
  def isSingleRow: Boolean =
    stop.length == start.length + 1 && stop.last == 0 &&
      java.util.Arrays.equals(start, 0, start.length, stop, 0, start.length)

  /** Whether some row is in both. */
  def overlaps(other: RowRange): Boolean = {
    def before(stop: Array[Byte], start: Array[Byte]) = stop.nonEmpty && Bytes.compareTo(stop, start) <= 0
    !isEmpty && !other.isEmpty && !before(stop, other.start) && !before(other.stop, start)
  }

  override def toString: String = s"[${Bytes.toStringBinary(start)}, ${Bytes.toStringBinary(stop)})"
}
