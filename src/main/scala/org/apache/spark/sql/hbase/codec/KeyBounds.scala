// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

/**
 * Row key bounds for scans. HBase scans take [start, stop); an empty array is the open end of
 * the table on either side.
 */
object KeyBounds {
  val Open: Array[Byte] = Array.emptyByteArray

  /** The smallest key greater than `key`: turns an inclusive upper bound into an exclusive one. */
  def successor(key: Array[Byte]): Array[Byte] = java.util.Arrays.copyOf(key, key.length + 1)

  /** The smallest key greater than every key starting with `prefix`; Open when there is none. */
  def prefixEnd(prefix: Array[Byte]): Array[Byte] = {
    var end = prefix.length
    while (end > 0 && prefix(end - 1) == 0xff.toByte) end -= 1
    if (end == 0) Open
    else {
      val bound = java.util.Arrays.copyOf(prefix, end)
      bound(end - 1) = (bound(end - 1) + 1).toByte
      bound
    }
  }

  /** [start, stop) holding exactly the keys that start with `prefix`. */
  def prefixRange(prefix: Array[Byte]): (Array[Byte], Array[Byte]) = (prefix, prefixEnd(prefix))
}
