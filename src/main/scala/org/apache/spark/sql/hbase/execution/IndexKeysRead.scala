// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.CellUtil
import org.apache.hadoop.hbase.client.{Get, Scan, Table}
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter}

import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.globalindex.IndexSpecs
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.planner.{IndexAnswer, IndexLookup}
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
   */
  def apply(cluster: HBaseClusterConf, table: HBaseTableDef, lookup: IndexLookup): Outcome = {
    val ranges = lookup.rows.ranges
    if (ranges.isEmpty) Outcome(Some(IndexAnswer(Nil, Nil)), 0)
    else {
      val spec = IndexSpecs.of(table, lookup.index)
      val filters = new FilterList(FilterList.Operator.MUST_PASS_ALL)
      filters.addFilter(new FirstKeyOnlyFilter())
      filters.addFilter(new KeyOnlyFilter())
      if (ranges.size > 1) {
        // HBase sorts the list it is given in place.
        val list = new java.util.ArrayList[MultiRowRangeFilter.RowRange]()
        ranges.foreach(r => list.add(new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)))
        filters.addFilter(new MultiRowRangeFilter(list))
      }
      val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop).setFilter(filters)
        .setCaching(math.min(lookup.maxRows + 1, 1000))
      HBaseConnections.withConnection(cluster) { connection =>
        val index = connection.getTable(lookup.index.indexTable.hbase)
        try {
          val scanner = index.getScanner(scan)
          try {
            val rows = scanner.iterator().asScala.take(lookup.maxRows + 1).toVector
            val keys = rows.flatMap(r => Option(spec.dataRowOf(r.getRow)))
            Outcome(if (keys.size > lookup.maxRows) None else Some(IndexAnswer(keys, untrusted(index))), rows.size)
          } finally scanner.close()
        } finally index.close()
      }
    }
  }

  /** The data ranges that bulk loads left the index behind on. */
  private def untrusted(index: Table): Seq[RowRange] = {
    val marks = index.get(new Get(IndexTrust.ROW).addFamily(IndexSpec.STATUS_FAMILY))
    Option(marks.rawCells()).toSeq.flatten.map(c => RowRange(CellUtil.cloneQualifier(c), CellUtil.cloneValue(c)))
  }
}
