// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{Connection, Get, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.globalindex.IndexSpecs
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.planner.{IndexAggregatePlan, IndexLookup}
import org.apache.spark.sql.hbase.server.{AggregateBatch, AggregateSpec, IndexRows, IndexSpec}

/**
 * The run-time read of an [[IndexAggregatePlan]]: the index's region servers aggregate the index
 * rows in the lookup's ranges that they can vouch for (VERIFIED, well formed), each region's ranges
 * at once, as [[IndexKeysRead]] reads them, and send back the keys of the others, whose data rows
 * are read from the data where they give those very keys.
 *
 * The answer stands only where the rows the servers folded in are each right, and each counted
 * once. A VERIFIED row matches its data row, but the answer is not taken when any of these holds:
 * a region server sent rows rather than groups (it runs no coprocessor that reads index rows); a
 * family the index copies expires by a TTL; the index marks ranges as untrusted or LOAD DATAs as
 * unchecked (their VERIFIED rows may be wrong); or an index row in the ranges changed since the
 * read began, less the lookup's `recentWritesMillis` (a row may then have moved between index
 * regions while they were read, and be counted twice or not at all). The marks and the changes
 * are read after the index rows, as [[IndexKeysRead]] reads them. None then, and the read goes
 * through the index as planned, answering from the rows themselves. More rows to read from the
 * data than the lookup takes is None too.
 */
object IndexAggregateRead {

  /**
   * What the index's region servers answered: Spark's partial aggregation rows of the rows they
   * folded in, the data row keys of the rows to read from the data (in key order, each once), how
   * many index rows they read, and how many of those they could not vouch for.
   */
  final case class Answer(partials: Seq[InternalRow], toCheck: Seq[Array[Byte]], indexRowsRead: Long, notVouched: Long)

  def apply(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      lookup: IndexLookup,
      plan: IndexAggregatePlan
  ): Option[Answer] = {
    val ranges = lookup.rows.ranges
    val since = System.currentTimeMillis() - lookup.recentWritesMillis
    val spec = plan.specOf
    if (ranges.isEmpty) Some(Answer(Nil, Nil, 0, 0))
    else HBaseConnections.withConnection(cluster) { connection =>
      val regions = IndexKeysRead.inRegions(connection, lookup)
      val reads: Seq[() => Either[Option[String], Option[Seq[AggregateBatch]]]] =
        IndexKeysRead.inParts(regions, lookup).map(part =>
          () => Right(batchesIn(connection, lookup, part, plan, spec))
        ) :+
          (() => Left(IndexKeysRead.expiring(connection, table, lookup.index)))
      val done = IndexKeysRead.indexReads.all(reads)
      val batches = done.collect { case Right(b) => b }
      val expires = done.collectFirst { case Left(family) => family }.flatten
      if (expires.isDefined || batches.exists(_.isEmpty)) None
      else {
        val all = batches.flatten.flatten
        val indexSpec = IndexSpecs.of(table, lookup.index)
        val (marks, changed) =
          IndexKeysRead.marksAndChanged(cluster, connection, lookup.index, regions, indexSpec, since, 1)
        val trusted = marks.untrusted.isEmpty && marks.landed.isEmpty && changed.isEmpty
        val toCheck = all.flatMap(_.toCheck.asScala)
        if (!trusted || toCheck.size > lookup.maxRows) None
        else {
          val rows = new HBaseAggregateRows(plan.aggregate, ReadMetrics.local())
          val checked = givingTheirKeys(connection, table, indexSpec, toCheck)
          Some(Answer(all.flatMap(rows.of(_).map(_.copy())), checked, all.map(_.rowsScanned).sum, toCheck.size))
        }
      }
    }
  }

  /**
   * The data rows named by `indexKeys`, index rows the region servers could not vouch for, that
   * give exactly that index key as they are now, as a reader checks an UNVERIFIED index row; in key
   * order, each once. A stale index row names a data row whose own index row lies elsewhere, and
   * was folded in there if the ranges hold it; that row is not the stale one's to count.
   */
  private def givingTheirKeys(
      connection: Connection,
      table: HBaseTableDef,
      spec: IndexSpec,
      indexKeys: Seq[Array[Byte]]
  ): Seq[Array[Byte]] = {
    val named = indexKeys.flatMap(key => Option(spec.dataRowOf(key)).map(key -> _))
    if (named.isEmpty) Nil
    else {
      val data = connection.getTable(table.hbaseTable.hbase)
      try {
        val gets = named.map { case (_, row) => val get = new Get(row); spec.addCellsRead(get); get }
        val found = data.get(gets.asJava)
        val giving = named.zip(found).collect {
          case ((key, row), r) if !r.isEmpty && Bytes.equals(IndexRows.rowOf(spec, row, r.listCells()), key) => row
        }
        giving.sortWith(Bytes.compareTo(_, _) < 0).foldLeft(Vector.empty[Array[Byte]]) { (kept, row) =>
          if (kept.lastOption.exists(Bytes.equals(_, row))) kept else kept :+ row
        }
      } finally data.close()
    }
  }

  /**
   * The batches of the index regions' servers over `ranges` (ranges of one region, or a part of
   * them); None when a server sent a row instead, which it does without a coprocessor that reads
   * the spec's wire version.
   */
  private def batchesIn(
      connection: Connection,
      lookup: IndexLookup,
      ranges: Seq[RowRange],
      plan: IndexAggregatePlan,
      spec: AggregateSpec
  ): Option[Seq[AggregateBatch]] = {
    val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
    if (ranges.size > 1) scan.setFilter(IndexKeysRead.inRanges(ranges))
    scan.setAttribute(AggregateSpec.ATTRIBUTE, plan.spec.bytes)
    val index = connection.getTable(lookup.index.indexTable.hbase)
    try {
      val scanner = index.getScanner(scan)
      try {
        val results = scanner.iterator().asScala
        val batches = Vector.newBuilder[AggregateBatch]
        var plain = false
        while (!plain && results.hasNext) {
          val result = results.next()
          if (AggregateBatch.isBatch(result)) batches += AggregateBatch.read(spec, result) else plain = true
        }
        if (plain) None else Some(batches.result())
      } finally scanner.close()
    } finally index.close()
  }
}
