// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.util.concurrent.atomic.AtomicInteger

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CellUtil, HConstants}
import org.apache.hadoop.hbase.client.{Connection, Result, Scan, Table}
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter, MultiRowRangeFilter}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.facts.FactsCache
import org.apache.spark.sql.hbase.globalindex.{CoveredRow, IndexMarks, IndexSpecs}
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}
import org.apache.spark.sql.hbase.planner.{IndexAnswer, IndexLookup, IndexReadSplits, RowRanges}
import org.apache.spark.sql.hbase.server.{IndexSpec, IndexTrust}

/** The run-time read of an [[IndexLookup]]: the data row keys its index holds in its ranges. */
object IndexKeysRead {

  /** What the index answered (None: more rows than the lookup takes), and how many index rows it read. */
  final case class Outcome(answer: Option[IndexAnswer], indexRowsRead: Long)

  /**
   * The data row keys named by the index rows in the lookup's ranges, VERIFIED or not (the scan
   * checks each data row it reads), with the ranges where the index is not trusted; None when
   * there are more keys than the lookup takes. A scan for each index region seeks through its
   * ranges and returns keys only; once they are done, two Gets read the marks of untrusted ranges
   * and loads, which a load writes before it lands files.
   *
   * A covering lookup reads the index rows whole and answers itself for each data row named by
   * exactly one index row that it can trust ([[IndexTrust]]): VERIFIED, outside the untrusted
   * ranges, not written by a LOAD DATA that no CHECK INDEX has found exact since, of a table none
   * of whose cells the index reads expire by a TTL. Every other named row is read from the data.
   *
   * The index's regions are read each as it is then, not at one instant, so a row that a write
   * moves between two of them during the read may be named twice or not at all. Once read, a raw
   * scan of each region's ranges (with the marks' Gets, [[marksAndChanged]]) finds the index rows
   * changed since the read began, less the lookup's `recentWritesMillis` (the region servers land
   * each write's index rows by then, timestamped no earlier, docs/indexes.md), and those of each
   * LOAD DATA that landed files since, by the load's own timestamp, which its index cells carry.
   * The data rows they name are read from the data, whatever the index said of them.
   */
  def apply(cluster: HBaseClusterConf, table: HBaseTableDef, lookup: IndexLookup): Outcome = {
    val since = System.currentTimeMillis() - lookup.recentWritesMillis
    if (lookup.rows.ranges.isEmpty) Outcome(Some(IndexAnswer(Nil, Nil)), 0)
    else {
      val spec = IndexSpecs.of(table, lookup.index)
      HBaseConnections.withConnection(cluster) { connection =>
        val regions = inRegions(connection, lookup)
        val (rows, expires) = indexRowsAndExpiry(connection, table, lookup, regions)
        if (rows.size > lookup.maxRows) Outcome(None, rows.size)
        else {
          // One more than the lookup takes is too many.
          val (marks, moved) =
            marksAndChanged(
              cluster,
              connection,
              lookup.index,
              regions,
              spec,
              since,
              oneMore(lookup.maxRows - rows.size)
            )
          if (moved.size + rows.size > lookup.maxRows) Outcome(None, rows.size)
          else {
            val answer =
              if (!lookup.covering || expires.isDefined)
                IndexAnswer(rows.flatMap(r => Option(spec.dataRowOf(r.getRow))) ++ moved, marks.untrusted)
              else answered(rows, spec, IndexSpecs.coveredCellsInRowOrder(table, lookup.index), marks, moved)
            Outcome(Some(answer), rows.size)
          }
        }
      }
    }
  }

  /**
   * The index rows in the lookup's ranges, in key order, at most one more than it takes in all;
   * and for a covering lookup, whether a family it reads expires ([[expiring]]). Each region's
   * ranges are read by a scan of their own, all at once, and HBase is asked for the expiry
   * meanwhile: a read of many ranges waits for its slowest region rather than for their sum.
   * Which region a range is in comes from the client's cache of region locations; where that is
   * out of date, a scan reads on into the next region.
   */
  private def indexRowsAndExpiry(
      connection: Connection,
      table: HBaseTableDef,
      lookup: IndexLookup,
      regions: Seq[Seq[RowRange]]
  ): (Vector[Result], Option[String]) = {
    // Shared by the regions' scans, so that a lookup that finds too many stops at one more than it takes.
    val left = new AtomicInteger(oneMore(lookup.maxRows))
    val reads: Seq[() => Either[Option[String], Vector[Result]]] =
      inParts(regions, lookup).map(ranges => () => Right(indexRowsIn(connection, table, lookup, ranges, left))) ++
        (if (lookup.covering) Seq(() => Left(expiring(connection, table, lookup.index))) else Nil)
    val done = if (reads.size == 1) reads.map(_.apply()) else indexReads.all(reads)
    (done.flatMap(_.toOption).flatten.toVector, done.collectFirst { case Left(family) => family }.flatten)
  }

  /** The ranges of each of `regions` ([[inRegions]]) cut at the lookup's splits, in key order. */
  private[execution] def inParts(regions: Seq[Seq[RowRange]], lookup: IndexLookup): Seq[Seq[RowRange]] =
    regions.flatMap(IndexReadSplits.parts(_, lookup.splits))

  /** The lookup's ranges in groups, each group in one region of the index as far as the client knows. */
  private[execution] def inRegions(connection: Connection, lookup: IndexLookup): Seq[Seq[RowRange]] = {
    val locator = connection.getRegionLocator(lookup.index.indexTable.hbase)
    try {
      val groups = Vector.newBuilder[Seq[RowRange]]
      var rest = lookup.rows.ranges
      while (rest.nonEmpty) {
        val end = locator.getRegionLocation(rest.head.start).getRegion.getEndKey
        val (inRegion, after) =
          if (end.isEmpty) (rest, Nil) else rest.span(r => Bytes.compareTo(r.start, end) < 0)
        groups += inRegion
        rest = after
      }
      groups.result()
    } finally locator.close()
  }

  /** The index rows in `ranges` (ranges of one region), as many as are `left`, taken from it. */
  private def indexRowsIn(
      connection: Connection,
      table: HBaseTableDef,
      lookup: IndexLookup,
      ranges: Seq[RowRange],
      left: AtomicInteger
  ): Vector[Result] = {
    // As many rows a call as the lookup takes: HBase ends a call at its size limit anyway.
    val scan = indexScan(table, lookup).withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
      .setCaching(oneMore(lookup.maxRows))
    if (ranges.size > 1) scan.setFilter(withFilter(scan.getFilter, inRanges(ranges)))
    val index = connection.getTable(lookup.index.indexTable.hbase)
    try {
      val scanner = index.getScanner(scan)
      try scanner.iterator().asScala.takeWhile(_ => left.getAndDecrement() > 0).toVector
      finally scanner.close()
    } finally index.close()
  }

  private def oneMore(n: Int): Int = if (n == Int.MaxValue) n else n + 1

  /** Threads that read an index's regions for a lookup; idle ones end after a minute. */
  private[execution] val indexReads = new ParallelReads("hbase-index-read", 8)

  /**
   * A scan of `lookup`'s index rows, without its bounds: the first cell of each, keys only, or for
   * a covering lookup its status and covered cells.
   */
  private[execution] def indexScan(table: HBaseTableDef, lookup: IndexLookup): Scan = {
    val scan = new Scan()
    if (lookup.covering) {
      scan.addColumn(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)
      IndexSpecs.coveredCellsInRowOrder(table, lookup.index).foreach { case (family, qualifier) =>
        scan.addColumn(family, qualifier)
      }
    } else scan.setFilter(withFilter(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
    scan
  }

  private def withFilter(filters: org.apache.hadoop.hbase.filter.Filter*): FilterList =
    new FilterList(FilterList.Operator.MUST_PASS_ALL, filters.filter(_ != null): _*)

  /**
   * The data rows named by the index rows in `ranges` changed from `since` on, at most `max` of
   * them: every time from then, but the build's (its rows landed before the index was ready), and
   * each LOAD DATA's own timestamp when it landed since.
   */
  private[execution] def changedSince(
      index: Table,
      ranges: Seq[RowRange],
      spec: IndexSpec,
      marks: IndexMarks,
      since: Long,
      max: Int
  ): Vector[Array[Byte]] = changed(index, ranges, spec, changedTimes(marks.built, marks.loadedSince(since), since), max)

  /**
   * The index's marks, read once the read of its rows is done, and [[changedSince]] of the
   * ranges of each region (`regions`, as [[inRegions]] groups them), at most `max` rows in all.
   * All are read at once, the changes at the times the marks gave the last read through the index
   * ([[FactsCache.IndexBuilt]]) with no load since `since`: a read through the index then costs
   * one more round of calls, not two. Where the marks say otherwise (a load landed since, or the
   * index was built anew), the changes are read again at their times.
   */
  private[execution] def marksAndChanged(
      cluster: HBaseClusterConf,
      connection: Connection,
      index: GlobalIndexDef,
      regions: Seq[Seq[RowRange]],
      spec: IndexSpec,
      since: Long,
      max: Int
  ): (IndexMarks, Vector[Array[Byte]]) = {
    def reading[T](read: Table => T): T = {
      val table = connection.getTable(index.indexTable.hbase)
      try read(table)
      finally table.close()
    }
    def changedAt(times: Seq[(Long, Long)]): Seq[() => Either[IndexMarks, Vector[Array[Byte]]]] =
      regions.map(ranges => () => Right(reading(changed(_, ranges, spec, times, max))))
    val built = FactsCache.IndexBuilt(cluster, index.indexTable)
    val guessed = changedTimes(FactsCache.cached(built, Long.MaxValue).flatten, Nil, since)
    val done = indexReads.all((() => Left(reading(IndexMarks.of))) +: changedAt(guessed))
    val marks = done.collectFirst { case Left(m) => m }.get
    FactsCache.put(built, marks.built)
    val times = changedTimes(marks.built, marks.loadedSince(since), since)
    val found = if (times == guessed) done else indexReads.all(changedAt(times))
    (marks, found.flatMap(_.toOption).flatten.take(max).toVector)
  }

  /**
   * The times whose index cells are changes since `since` ([[changedSince]]): all from then on but
   * the build's, `built`, and each load's timestamp in `loads`.
   */
  private def changedTimes(built: Option[Long], loads: Iterable[Long], since: Long): Seq[(Long, Long)] = {
    val recent = built.filter(_ >= since).fold(Seq(since -> Long.MaxValue))(b =>
      Seq(since -> b, (b + 1) -> Long.MaxValue)
    )
    val older = loads.toSeq.filterNot(t => recent.exists { case (from, until) => t >= from && t < until })
    (recent ++ older.map(t => t -> (t + 1))).filter(t => t._1 < t._2)
  }

  private def changed(
      index: Table,
      ranges: Seq[RowRange],
      spec: IndexSpec,
      times: Seq[(Long, Long)],
      max: Int
  ): Vector[Array[Byte]] =
    if (ranges.isEmpty || times.isEmpty) Vector.empty
    else if (ranges.size > 1) changedAcross(index, ranges, spec, times, max)
    else times.foldLeft(Vector.empty[Array[Byte]]) { case (found, (from, until)) =>
      if (found.size >= max) found
      else found ++ changedIn(index, ranges.head, spec, from, until, max - found.size)
    }

  /**
   * The covering lookup's answer: the rows it can trust, and the keys of the others. Sorted by
   * data row key once, so that a data row two index rows name (one of them stale) is found next
   * to its twin, and the answer comes in the order [[IndexLookup.narrow]] hands it to regions in.
   */
  private[execution] def answered(
      rows: Seq[Result],
      spec: IndexSpec,
      covered: Seq[(Array[Byte], Array[Byte])],
      marks: IndexMarks,
      moved: Seq[Array[Byte]]
  ): IndexAnswer = {
    val untrusted = if (marks.untrusted.isEmpty) None else Some(RowRanges.merge(marks.untrusted))
    val recent = moved.map(java.nio.ByteBuffer.wrap).toSet
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
        !untrusted.exists(_.overlaps(RowRange(key, KeyBounds.successor(key)))) &&
        (recent.isEmpty || !recent(java.nio.ByteBuffer.wrap(key)))
      if (trust) trusted += CoveredRow.of(r, key, covered)
      else if (!sameKey(i, i - 1)) checked += key
    }
    // A moved row that no index row named is read too: the read may have missed it.
    IndexAnswer(checked.result() ++ moved, marks.untrusted, trusted.result())
  }

  /**
   * The data rows named by the index rows in `range` with a cell or a delete marker
   * timestamped from `from` until `until` (read raw), at most `max` of them. HBase skips the
   * files whose cells are all older.
   */
  private def changedIn(
      index: Table,
      range: RowRange,
      spec: IndexSpec,
      from: Long,
      until: Long,
      max: Int
  ): Vector[Array[Byte]] = {
    val scan = new Scan().withStartRow(range.start).withStopRow(range.stop)
      .setRaw(true).setTimeRange(from, until).setCaching(math.min(max, 1000)).addFamily(IndexSpec.STATUS_FAMILY)
    val scanner = index.getScanner(scan)
    try scanner.iterator().asScala.flatMap(r => Option(spec.dataRowOf(r.getRow))).take(max).toVector
    finally scanner.close()
  }

  /**
   * [[changedIn]] for several ranges and `times` at once: every cell and delete marker of the
   * ranges, of any time, keys only, tested here. With a time range, HBase tests a cell's time
   * before the filter that seeks from range to range, so wherever a file or the memstore held
   * cells of those times it read every row between the ranges (an IN list of 100 values read
   * 104,185 index rows where 1,345 matched); this reads the ranges' rows, which the read of the
   * lookup has just found to be few.
   */
  private def changedAcross(
      index: Table,
      ranges: Seq[RowRange],
      spec: IndexSpec,
      times: Seq[(Long, Long)],
      max: Int
  ): Vector[Array[Byte]] = {
    val scan = new Scan().withStartRow(ranges.head.start).withStopRow(ranges.last.stop)
      .setRaw(true).readAllVersions().setCaching(1000).addFamily(IndexSpec.STATUS_FAMILY)
      .setFilter(withFilter(inRanges(ranges), new KeyOnlyFilter()))
    def changed(r: Result) = r.rawCells().exists { c =>
      times.exists { case (from, until) => c.getTimestamp >= from && c.getTimestamp < until }
    }
    val scanner = index.getScanner(scan)
    try scanner.iterator().asScala.filter(changed).flatMap(r => Option(spec.dataRowOf(r.getRow))).take(max).toVector
    finally scanner.close()
  }

  private[execution] def inRanges(ranges: Seq[RowRange]): MultiRowRangeFilter = {
    // HBase sorts the list it is given in place.
    val list = new java.util.ArrayList[MultiRowRangeFilter.RowRange]()
    ranges.foreach(r => list.add(new MultiRowRangeFilter.RowRange(r.start, true, r.stop, false)))
    new MultiRowRangeFilter(list)
  }

  /**
   * A family of the data table whose cells expire by a TTL and the index reads: such a cell
   * vanishes without a write, which leaves its index row VERIFIED but wrong. Asked of HBase at
   * each read, since a TTL set by another tool takes effect at once.
   */
  private[execution] def expiring(
      connection: Connection,
      table: HBaseTableDef,
      index: GlobalIndexDef
  ): Option[String] = {
    val admin = connection.getAdmin
    try {
      val read = IndexSpecs.readCells(table, index).map(c => Utf8.string(c._1)).toSet
      admin.getDescriptor(table.hbaseTable.hbase).getColumnFamilies.find { f =>
        f.getTimeToLive != HConstants.FOREVER && read(f.getNameAsString)
      }.map(_.getNameAsString)
    } finally admin.close()
  }
}
