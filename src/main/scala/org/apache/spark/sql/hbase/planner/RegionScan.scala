// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{And, Attribute, Expression, PredicateHelper}
import org.apache.spark.sql.hbase.codec.{KeyBounds, KeyCodec, RowRange}
import org.apache.spark.sql.hbase.globalindex.CoveredRows
import org.apache.spark.sql.hbase.server.SkipScanFilter

/**
 * What the region server does for a region, with the server jar: a skip scan through key boxes
 * (None: no key filtering beyond the ranges), and conjuncts of the WHERE clause it evaluates.
 * `wire` is the filter as it is sent, written once the plan is finished ([[RegionRequests]]).
 */
final case class ServerFilter(boxes: Option[Seq[KeyBoxPlan]], pushed: Seq[Expression], wire: Option[WireBytes] = None) {

  /** The filter to send, from the bytes planning wrote. */
  def filter: SkipScanFilter = SkipScanFilter.parseFrom(
    wire.getOrElse(throw new IllegalStateException("the plan's server filter was never written")).bytes
  )
}

/**
 * What the partition of one region reads: its part of the row ranges, and the part of the WHERE
 * clause that the ranges do not already guarantee there: `residual` for Spark, and what the
 * `server` filter evaluates when there is one. `narrowed` ranges are narrower than the server
 * filter's key boxes (by a join's keys, [[JoinKeys]]), so HBase seeks from range to range itself.
 * `covered` rows of the region, which a covering index answered for at run time
 * ([[IndexLookup.narrow]]), are read from the index rows instead and checked in Spark against
 * what both the server filter and the residual check.
 */
final case class RegionScan(
    region: RegionInfo,
    ranges: Seq[RowRange],
    residual: Option[Expression],
    server: Option[ServerFilter] = None,
    narrowed: Boolean = false,
    covered: Option[CoveredRows] = None
) {

  /**
   * Every range is one whole key, so the region is read with Gets rather than a scan. A join's
   * keys, often many and close together, are sought by one scan instead: a Get each would cost
   * the region server a scanner each.
   */
  def byGets: Boolean = !narrowed && ranges.forall(_.isSingleRow)

  /** No ranges to read and no covered rows: a join's keys or an index left the region nothing. */
  def readsNothing: Boolean = ranges.isEmpty && covered.forall(_.isEmpty)

  /**
   * The same read for a region server without the server jar: what the server filter would
   * check joins the residual (first, being the cheaper part), and the ranges alone bound the rows.
   */
  def withoutServer: RegionScan =
    copy(residual = (server.toSeq.flatMap(_.pushed) ++ residual).reduceOption(And), server = None)

  /** The part of the read after row `key`, for a read that has returned the rows up to it. */
  def after(key: Array[Byte]): RegionScan = copy(
    ranges = RowRanges(ranges).clip(KeyBounds.successor(key), KeyBounds.Open),
    covered = covered.map(c => c.copy(rows = c.rows.filter(r => Bytes.compareTo(r.dataKey, key) > 0)))
  )

  /** The part of a reversed read below row `key`, for a read that has returned the rows down to it. */
  def before(key: Array[Byte]): RegionScan = copy(
    ranges = RowRanges(ranges).clip(KeyBounds.Open, key),
    covered = covered.map(c => c.copy(rows = c.rows.filter(r => Bytes.compareTo(r.dataKey, key) < 0)))
  )
}

/**
 * How a range index narrowed a scan: of its `chunksTotal` chunks, `chunksRead` hold rows the scan
 * still reads, and `chunksSkipped` more would have been read without it. `untrusted` chunks were
 * written since the index was built and are read in full. `rowsAtMost` bounds the rows read
 * when every chunk read is trusted.
 */
final case class RangeIndexUse(
    name: String,
    chunksRead: Int,
    chunksTotal: Int,
    chunksSkipped: Int,
    untrusted: Int,
    rowsAtMost: Option[Long] = None
) {
  override def toString: String =
    s"range index $name: $chunksRead of $chunksTotal chunks" + (if (untrusted > 0) s" ($untrusted not trusted)" else "")
}

/**
 * The regions step of planning a scan ([[HBaseScanPlanner]], step 3): the regions out of the
 * table's `regionsTotal` that the row ranges touch, each a [[RegionScan]]. It is not a plan of
 * its own: the [[TableScanPlan]] takes its regions over.
 */
final case class RegionsRead(regionsTotal: Int, regions: Seq[RegionScan]) {

  /** Row key ranges read, over all regions. */
  def rowRanges: Int = regions.map(_.ranges.size).sum

  /**
   * The regions with what region servers can do moved to them: in each region, the key boxes
   * that overlap it, when they skip rows its ranges hold or it has several ranges to seek
   * between; and the conjuncts of its residual that are `pushable`.
   */
  def withServerFilters(boxes: Seq[KeyBoxPlan], pushable: Expression => Boolean): RegionsRead =
    copy(regions = regions.map { scan =>
      val inRegion = boxes.filter(b => scan.region.overlaps(b.rows))
      val skip = !scan.byGets && (inRegion.exists(_.narrowsRows) || scan.ranges.size > 1)
      val (pushed, kept) = scan.residual.toSeq.flatMap(RegionsRead.conjunctsOf).partition(pushable)
      scan.copy(
        residual = kept.reduceOption(And),
        server = Some(ServerFilter(if (skip) Some(inRegion) else None, pushed))
      )
    })
}

object RegionsRead extends PredicateHelper {

  private def conjunctsOf(e: Expression): Seq[Expression] = splitConjunctivePredicates(e)

  /**
   * Keeps the regions that the key ranges touch, clips the ranges to each, and specialises the
   * condition per region: a conjunct that holds throughout every key range read in a region,
   * as cut by the region's boundaries, is dropped there.
   *
   * @param keys the key columns the ranges were planned over (the codec's prunable ones)
   * @param rows the row ranges read, when narrower than the key ranges' (by a range index)
   */
  def apply(
      regions: Seq[RegionInfo],
      keyRanges: KeyRanges,
      keys: Seq[Attribute],
      codec: KeyCodec,
      condition: Option[Expression],
      rows: Option[RowRanges]
  ): RegionsRead = {
    val conjuncts = condition.toSeq.flatMap(splitConjunctivePredicates).toIndexedSeq
    val critical: IndexedSeq[(KeyRange, RowRange)] = keyRanges match {
      case KeyRanges.FullScan => Vector((KeyRange(Vector.empty, None), RowRange(KeyBounds.Open, KeyBounds.Open)))
      case KeyRanges.Ranges(ranges) =>
        ranges.map(r => (r, RowRanges.rowRangeOf(r, codec))).filterNot(_._2.isEmpty).toVector
    }
    val read = rows.getOrElse(RowRanges(keyRanges, codec))
    // Each conjunct is prepared once for every range asked about: long IN lists and ORs have thousands.
    val holdsThroughout = conjuncts.map(KeyRangePlanner.holdsThroughout(_, keys))
    val holds = mutable.Map.empty[(Int, Int), Boolean]
    def holdsIn(conjunct: Int, range: Int): Boolean = holds.getOrElseUpdate(
      (conjunct, range),
      keys.nonEmpty && holdsThroughout(conjunct)(critical(range)._1)
    )
    val onKeys = conjuncts.map(c => keys.nonEmpty && c.references.exists(a => keys.exists(_.semanticEquals(a))))
    // A key range cut by a region's boundaries may decide more than the whole range does.
    def holdsInRegion(conjunct: Int, range: Int, region: RegionInfo): Boolean = holdsIn(conjunct, range) ||
      (onKeys(conjunct) && RowRanges(Seq(critical(range)._2)).clip(region.startKey, region.endKey).forall { rows =>
        holdsThroughout(conjunct)(keyRangeOf(rows, codec, keys.size))
      })

    val scans = regions.flatMap { region =>
      val ranges = read.clip(region.startKey, region.endKey)
      if (ranges.isEmpty) None
      else {
        val inside = critical.indices.filter(i => region.overlaps(critical(i)._2))
        val residual = conjuncts.indices
          .filterNot(c => inside.nonEmpty && inside.forall(holdsInRegion(c, _, region)))
          .map(conjuncts)
          .reduceOption(And)
        Some(RegionScan(region, ranges, residual))
      }
    }
    RegionsRead(regions.size, scans)
  }

  /**
   * A key range holding every row of `rows`: the leading values its two ends share, then a range
   * on the next key column between the values the ends hold there.
   */
  def keyRangeOf(rows: RowRange, codec: KeyCodec, keyColumns: Int): KeyRange = {
    val (low, _) = codec.decodePrefix(rows.start)
    val (high, highExact) = if (rows.stop.isEmpty) (Nil, false) else codec.decodePrefix(rows.stop)
    val shared = low.zip(high).takeWhile { case (a, b) => a == b }.map(_._1).take(keyColumns).toVector
    val dim = shared.size
    if (dim == keyColumns) KeyRange(shared, None)
    else {
      val lower = low.lift(dim).map(Bound(_, inclusive = true))
      // Rows below a stop that ends right after this column's value hold a smaller value here.
      val upper = high.lift(dim).map(Bound(_, inclusive = !(highExact && high.size == dim + 1)))
      KeyRange(shared, if (lower.isEmpty && upper.isEmpty) None else Some(ColumnRange(lower, upper)))
    }
  }
}
