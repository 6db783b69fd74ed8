// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{Attribute, GenericInternalRow, InterpretedOrdering}
import org.apache.spark.sql.catalyst.plans.{
  ExistenceJoin, FullOuter, Inner, JoinType, LeftAnti, LeftOuter, LeftSemi, RightOuter
}
import org.apache.spark.sql.hbase.codec.KeyCodec

/**
 * How a scan is read beside another table's scan of the same leading key values: in ranges of
 * the leading key column's values, cut at `cuts` (range i holds the values from cut i-1 to cut
 * i, the first and last open), one Spark partition per range in `ranges`, in key order. Each of
 * the scan's regions lies in one range (`rangeOf`, by region), so two scans aligned at the same
 * cuts and ranges hold every value of the key in partitions of the same index: a join on it
 * needs neither a shuffle nor a sort.
 */
final case class KeyAlignment(key: Attribute, cuts: Vector[Any], ranges: Vector[Int], rangeOf: Vector[Int]) {

  /** What each partition reads: the regions in its range, in key order (or what is read of each region). */
  def partitions[R](regions: Seq[R]): Seq[Seq[R]] = {
    val byRange = regions.zip(rangeOf).groupMap(_._2)(_._1)
    ranges.map(r => byRange.getOrElse(r, Nil))
  }
}

object KeyAlignment {

  /**
   * The cuts two scans are read at: every value of the leading key column at which a region
   * either of them reads begins or ends. A region edge inside one value's rows cuts before them.
   */
  def cuts(key: Attribute, plans: Seq[TableScanPlan]): Vector[Any] = {
    val values = plans.flatMap { plan =>
      val codec = KeyCodec.forTable(plan.request.table)
      plan.regions.flatMap(r => Seq(r.region.startKey, r.region.endKey)).filter(_.nonEmpty)
        .flatMap(edge => codec.decodePrefix(edge)._1.headOption)
    }
    val ordering = orderingOf(key)
    values.sorted(ordering).foldLeft(Vector.empty[Any]) { (kept, v) =>
      if (kept.nonEmpty && ordering.equiv(kept.last, v)) kept else kept :+ v
    }
  }

  /**
   * `plan` read at `cuts`: each region split where a cut falls inside it, the parts keeping
   * their region's residual and server filter (which hold in any part of it), and every range
   * that holds rows a partition.
   */
  def align(plan: TableScanPlan, cuts: Vector[Any]): TableScanPlan = {
    val key = plan.keyOrder.head
    val codec = KeyCodec.forTable(plan.request.table)
    val edges = cuts.map(v => codec.encodePrefix(Seq(v)))
    // The range a row key falls in: how many cuts are at or below it.
    def rangeOf(row: Array[Byte]): Int = {
      var (lo, hi) = (0, edges.size)
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (Bytes.compareTo(edges(mid), row) <= 0) lo = mid + 1 else hi = mid
      }
      lo
    }
    val parts = plan.regions.flatMap { scan =>
      val region = scan.region
      val first = rangeOf(region.startKey)
      val last = if (region.endKey.isEmpty) edges.size else rangeOf(region.endKey)
      (first to last).flatMap { range =>
        val start = if (range == first) region.startKey else edges(range - 1)
        val end = if (range == last) region.endKey else edges(range)
        val ranges = RowRanges(scan.ranges).clip(start, end)
        if (ranges.isEmpty) None
        else Some((scan.copy(region = region.copy(startKey = start, endKey = end), ranges = ranges), range))
      }
    }
    val regions = parts.map(_._1)
    val alignment = KeyAlignment(key, cuts, parts.map(_._2).distinct.toVector, parts.map(_._2).toVector)
    plan.copy(regions = regions, driverRead = false, alignment = Some(alignment), oneTask = false, tasks = None)
  }

  /**
   * The ranges a join of two aligned scans reads: a range that one side holds no rows of adds
   * nothing to an inner join, nor to an outer join when it is the other side that keeps its rows.
   */
  def joined(joinType: JoinType, left: KeyAlignment, right: KeyAlignment): Option[Vector[Int]] = {
    val (l, r) = (left.ranges.toSet, right.ranges.toSet)
    val keep: Int => Boolean = joinType match {
      case Inner | LeftSemi => i => l(i) && r(i)
      case LeftOuter | LeftAnti | ExistenceJoin(_) => l
      case RightOuter => r
      case FullOuter => i => l(i) || r(i)
      case _ => return None
    }
    Some((l ++ r).toVector.sorted.filter(keep))
  }

  /** The plan read in exactly `ranges`, each a partition, empty where it holds no rows. */
  def readIn(plan: TableScanPlan, ranges: Vector[Int]): TableScanPlan = {
    val alignment = plan.alignment.get
    val keep = ranges.toSet
    val kept = plan.regions.zip(alignment.rangeOf).filter { case (_, r) => keep(r) }
    plan.copy(
      regions = kept.map(_._1),
      alignment = Some(alignment.copy(ranges = ranges, rangeOf = kept.map(_._2).toVector))
    )
  }

  def orderingOf(key: Attribute): Ordering[Any] =
    InterpretedOrdering.forSchema(Seq(key.dataType)).on[Any](v => new GenericInternalRow(Array[Any](v)))
}
