// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CellUtil, HConstants}
import org.apache.hadoop.hbase.client.{Connection, Result, Scan}
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.globalindex.{CoveredRow, IndexMarks, IndexSpecs}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}
import org.apache.spark.sql.hbase.planner.{IndexAnswer, IndexLookup, RowRanges}
import org.apache.spark.sql.hbase.server.{IndexSpec, IndexTrust}

/** The run-time read of an [[IndexLookup]]: the data row keys its index holds in its ranges. */
object IndexKeysRead {

  /** What the index answered (None: more rows than the lookup takes), and how many index rows it read. */
  final case class Outcome(answer: Option[IndexAnswer], indexRowsRead: Long)

  /**
   * The data row keys named by the index rows in the lookup's ranges, VERIFIED or not (the scan
   * checks each data row it reads), with the ranges where the index is not trusted; None when
   * there are more keys than the lookup takes. One scan seeks through the ranges and returns keys
   * only; one Get reads the marks of untrusted ranges.
   *
   * A covering lookup reads the index rows whole and answers itself for each data row named by
   * exactly one index row that it can trust ([[IndexTrust]]): VERIFIED, outside the untrusted
   * ranges, not written by a LOAD DATA that no CHECK INDEX has found exact since, of a table none
   * of whose cells the index reads expire by a TTL. Every other named row is read from the data.
   */
  def apply(cluster: HBaseClusterConf, table: HBaseTableDef, lookup: IndexLookup): Outcome = {
    val ranges = lookup.rows.ranges
    if (ranges.isEmpty) Outcome(Some(IndexAnswer(Nil, Nil)), 0)
    else {
      val spec = IndexSpecs.of(table, lookup.index)
      val filters = new FilterList(FilterList.Operator.MUST_PASS_ALL)
      if (!lookup.covering) {
        filters.addFilter(new FirstKeyOnlyFilter())
        filters.addFilter(new KeyOnlyFilter())
      }
      if (ranges.size > 1) {
        // HBase sorts the list it is given in place.
        val list = new java.util.ArrayList[MultiRowRangeFilter.RowRange]()
        ranges.foreach(r => list.add(new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)))
        filters.addFilter(new MultiRowRangeFilter(list))
      }
      val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
        .setCaching(math.min(lookup.maxRows + 1, 1000))
      if (!filters.getFilters.isEmpty) scan.setFilter(filters)
      val covered = if (lookup.covering) IndexSpecs.coveredCellsInRowOrder(table, lookup.index) else Nil
      if (lookup.covering) {
        scan.addColumn(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)
        covered.foreach { case (family, qualifier) => scan.addColumn(family, qualifier) }
      }
      HBaseConnections.withConnection(cluster) { connection =>
        val index = connection.getTable(lookup.index.indexTable.hbase)
        try {
          val scanner = index.getScanner(scan)
          try {
            val rows = scanner.iterator().asScala.take(lookup.maxRows + 1).toVector
            if (rows.size > lookup.maxRows) Outcome(None, rows.size)
            else {
              val marks = IndexMarks.of(index)
              val answer =
                if (!lookup.covering || expiring(connection, table, lookup.index).isDefined)
                  IndexAnswer(rows.flatMap(r => Option(spec.dataRowOf(r.getRow))), marks.untrusted)
                else answered(rows, spec, covered, marks)
              Outcome(Some(answer), rows.size)
            }
          } finally scanner.close()
        } finally index.close()
      }
    }
  }

  /**
   * The covering lookup's answer: the rows it can trust, and the keys of the others. Sorted by
   * data row key once, so that a data row two index rows name (one of them stale) is found next
   * to its twin, and the answer comes in the order [[IndexLookup.narrow]] hands it to regions in.
   */
  private def answered(
      rows: Seq[Result],
      spec: IndexSpec,
      covered: Seq[(Array[Byte], Array[Byte])],
      marks: IndexMarks
  ): IndexAnswer = {
    val untrusted = if (marks.untrusted.isEmpty) None else Some(RowRanges.merge(marks.untrusted))
    val named = rows.flatMap(r => Option(spec.dataRowOf(r.getRow)).map(_ -> r)).toArray
      .sortWith((a, b) => Bytes.compareTo(a._1, b._1) < 0)
    def sameKey(i: Int, j: Int) = j >= 0 && j < named.length && Bytes.equals(named(i)._1, named(j)._1)
    val checked = Vector.newBuilder[Array[Byte]]
    val trusted = Vector.newBuilder[CoveredRow]
    named.indices.foreach { i =>
      val (key, r) = named(i)
      val status = r.rawCells().find(c => CellUtil.matchingColumn(c, IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)).orNull
      val trust = !sameKey(i, i - 1) && !sameKey(i, i + 1) && status != null && status.getValueLength == 1 &&
        status.getValueArray()(status.getValueOffset) == IndexSpec.VERIFIED && !marks.loading(status.getTimestamp) &&
        !untrusted.exists(_.overlaps(RowRange(key, KeyBounds.successor(key))))
      if (trust) trusted += CoveredRow.of(r, key, covered)
      else if (!sameKey(i, i - 1)) checked += key
    }
    IndexAnswer(checked.result(), marks.untrusted, trusted.result())
  }

  /**
   * A family of the data table whose cells expire by a TTL and the index reads: such a cell
   * vanishes without a write, which leaves its index row VERIFIED but wrong. Asked of HBase at
   * each read, since a TTL set by another tool takes effect at once.
   */
  private def expiring(connection: Connection, table: HBaseTableDef, index: GlobalIndexDef): Option[String] = {
    val admin = connection.getAdmin
    try {
      val read = IndexSpecs.readCells(table, index).map(c => Utf8.string(c._1)).toSet
      admin.getDescriptor(table.hbaseTable.hbase).getColumnFamilies.find { f =>
        f.getTimeToLive != HConstants.FOREVER && read(f.getNameAsString)
      }.map(_.getNameAsString)
    } finally admin.close()
  }
}
