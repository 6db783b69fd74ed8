// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.Partitioner

/** A row to load: its row key, and its place in the input, so that the last of equal keys wins. */
final case class LoadKey(rowKey: Array[Byte], order: Long)

object LoadKey {
  implicit val ordering: Ordering[LoadKey] = (a: LoadKey, b: LoadKey) => {
    val byKey = Bytes.compareTo(a.rowKey, b.rowKey)
    if (byKey != 0) byKey else java.lang.Long.compare(a.order, b.order)
  }
}

/** Sends each row to the partition of the region that holds its key, given the regions' start keys in order. */
final class RegionPartitioner(startKeys: Array[Array[Byte]]) extends Partitioner {
  override def numPartitions: Int = startKeys.length

  override def getPartition(key: Any): Int = RegionPartitioner.regionOf(startKeys, key.asInstanceOf[LoadKey].rowKey)
}

object RegionPartitioner {

  /** The last region whose start key is at or below the row key; the first starts at the empty key. */
  def regionOf(startKeys: Array[Array[Byte]], rowKey: Array[Byte]): Int = {
    var (lo, hi) = (0, startKeys.length - 1)
    while (lo < hi) {
      val mid = (lo + hi + 1) >>> 1
      if (Bytes.compareTo(startKeys(mid), rowKey) <= 0) lo = mid else hi = mid - 1
    }
    lo
  }
}
