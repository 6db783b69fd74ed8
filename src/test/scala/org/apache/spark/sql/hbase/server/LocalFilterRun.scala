// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.collection.mutable.ArrayBuffer

import org.apache.hadoop.hbase.{Cell, CellUtil}
import org.apache.hadoop.hbase.filter.Filter
import org.apache.hadoop.hbase.filter.Filter.ReturnCode
import org.apache.hadoop.hbase.util.Bytes

/**
 * What a region server's scan returns with `filter`, worked out without HBase over rows held in
 * memory (each one version per cell, sorted): HBase's calls to a filter, in HBase's order. The
 * fuzz spec compares the region server with it, so a payload that parses must mean exactly this.
 */
object LocalFilterRun {
  def apply(filter: Filter, rows: IndexedSeq[Array[Cell]]): Seq[Seq[Cell]] = {
    val out = ArrayBuffer[Seq[Cell]]()
    var i = 0
    while (i < rows.length && !filter.filterAllRemaining()) {
      filter.reset()
      val cells = rows(i)
      var next = i + 1
      if (!filter.filterRowKey(cells.head)) {
        val kept = ArrayBuffer[Cell]()
        var c = 0
        var rowDone = false
        var seeked = false
        while (c < cells.length && !rowDone) {
          filter.filterCell(cells(c)) match {
            case ReturnCode.INCLUDE | ReturnCode.INCLUDE_AND_NEXT_COL => kept += filter.transformCell(cells(c))
            case ReturnCode.SKIP | ReturnCode.NEXT_COL =>
            case ReturnCode.NEXT_ROW => rowDone = true
            case ReturnCode.SEEK_NEXT_USING_HINT =>
              val hint = CellUtil.cloneRow(filter.getNextCellHint(cells(c)))
              val at = rows.indexWhere(r => Bytes.compareTo(CellUtil.cloneRow(r.head), hint) >= 0, i + 1)
              next = if (at < 0) rows.length else at
              rowDone = true
              seeked = true
            case other => throw new IllegalStateException(s"a return code the model does not know: $other")
          }
          c += 1
        }
        if (!seeked && kept.nonEmpty && !(filter.hasFilterRow && filter.filterRow())) out += kept.toSeq
      }
      i = next
    }
    out.toSeq
  }
}
