// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.CellUtil
import org.apache.hadoop.hbase.client.{Delete, Get, Put, Table}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.server.{IndexSpec, IndexTrust}

/**
 * Where an index table says its rows cannot be trusted ([[IndexTrust]]): the data ranges another
 * tool's bulk loads changed without it, read whole by every query, and the LOAD DATAs (by their
 * timestamps) whose VERIFIED rows a covering read checks against the data like UNVERIFIED ones.
 * `clearable` are the marks a CHECK INDEX that finds the index exact after reading them may clear,
 * as (row, qualifier, version): every range, and the loads that had landed all their files (a
 * load still landing may yet leave rows the check did not see). `landed` gives, for each load not
 * checked since, when it landed its last file (its mark's version), or Long.MaxValue while it lands;
 * `built` the timestamp of the build's index rows.
 */
final case class IndexMarks(
    untrusted: Seq[RowRange],
    clearable: Seq[(Array[Byte], Array[Byte], Long)],
    landed: Map[Long, Long] = Map.empty,
    built: Option[Long] = None
) {

  /** Whether an index row whose status cell has this timestamp was written by a LOAD DATA not checked since. */
  def loading(timestamp: Long): Boolean = landed.contains(timestamp)

  /**
   * The timestamps of the LOAD DATAs that may have changed index rows at or after `time`: those
   * still landing, and those that landed their last file since. Their index cells carry their own
   * timestamp, older than when they land.
   */
  def loadedSince(time: Long): Iterable[Long] = landed.collect { case (load, at) if at >= time => load }
}

object IndexMarks {

  /**
   * The marks of one index table, its two rows read by a Get each, one after the other: a client
   * sends a lone Get from the calling thread, and a list of Gets through its batch machinery,
   * which took a warm client twice as long for these two rows (0.9 against 0.5 ms).
   */
  def of(index: Table): IndexMarks = {
    def cellsOf(row: Array[Byte]) =
      Option(index.get(new Get(row).addFamily(IndexSpec.STATUS_FAMILY)).rawCells()).toSeq.flatten
    val rangeCells = cellsOf(IndexTrust.ROW)
    val loadCells = cellsOf(IndexTrust.LOADS_ROW)
    val landed = loadCells.filter(c => CellUtil.matchingValue(c, Landed))
    IndexMarks(
      rangeCells.map(c => RowRange(CellUtil.cloneQualifier(c), CellUtil.cloneValue(c))),
      (rangeCells ++ landed).map(c => (CellUtil.cloneRow(c), CellUtil.cloneQualifier(c), c.getTimestamp)),
      loadCells.filter(_.getQualifierLength == Bytes.SIZEOF_LONG).map { c =>
        Bytes.toLong(c.getQualifierArray, c.getQualifierOffset) ->
          (if (CellUtil.matchingValue(c, Landed)) c.getTimestamp else Long.MaxValue)
      }.toMap,
      loadCells.find(c => CellUtil.matchingQualifier(c, Built) && c.getValueLength == Bytes.SIZEOF_LONG)
        .map(c => Bytes.toLong(c.getValueArray, c.getValueOffset))
    )
  }

  private val Landing = Array[Byte](0)
  private val Landed = Array[Byte](1)
  private val Built = Bytes.toBytes("built")

  /**
   * Records the timestamp the build gives its index rows, before it writes any: they land before
   * the index is ready, so a read through it need not take them for rows changed during the read
   * ([[org.apache.spark.sql.hbase.execution.IndexKeysRead]]).
   */
  def markBuild(index: Table, timestamp: Long): Unit =
    index.put(new Put(IndexTrust.LOADS_ROW).addColumn(IndexSpec.STATUS_FAMILY, Built, Bytes.toBytes(timestamp)))

  /**
   * Marks the rows of a LOAD DATA whose index cells carry `timestamp`: before any lands, and
   * again, as a newer version, once the load is over.
   */
  def markLoad(index: Table, timestamp: Long, landed: Boolean): Unit =
    index.put(new Put(IndexTrust.LOADS_ROW).addColumn(
      IndexSpec.STATUS_FAMILY,
      Bytes.toBytes(timestamp),
      if (landed) math.max(timestamp + 1, System.currentTimeMillis()) else timestamp,
      if (landed) Landed else Landing
    ))

  /**
   * Clears `cells` and their older versions: a load that marked since has marked a newer version
   * (or another timestamp), which stays.
   */
  def clear(index: Table, cells: Seq[(Array[Byte], Array[Byte], Long)]): Unit = if (cells.nonEmpty) {
    val deletes = cells.groupBy(c => Bytes.toStringBinary(c._1)).values.map { inRow =>
      val delete = new Delete(inRow.head._1)
      inRow.foreach { case (_, qualifier, version) => delete.addColumns(IndexSpec.STATUS_FAMILY, qualifier, version) }
      delete
    }
    index.delete(new java.util.ArrayList[Delete](deletes.asJavaCollection)) // HBase empties the list it is given
  }
}
