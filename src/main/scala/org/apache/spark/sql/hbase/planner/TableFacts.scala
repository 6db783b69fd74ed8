// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, RangeIndexDef}
import org.apache.spark.sql.hbase.rangeindex.IndexChunks

/**
 * What planning needs to know of a live HBase table. Looking it up is I/O, so it happens outside
 * `planning/` (see `facts.LiveTableFacts`); the planner only reads the answers, and a test
 * can hand it any it likes.
 */
trait TableFacts {

  /** The table's regions, in key order. */
  def regions: Seq[RegionInfo]

  /**
   * The wire version in which each region server holding one of `regions` runs the server jar's
   * filter, by [[RegionInfo.serverName]], or None for one that refused it. A server left out is
   * not known (a region in transition, a probe that failed): its regions are read through the
   * jar, and without it if the region server refuses.
   */
  def serverFilter(regions: Seq[RegionInfo]): Map[String, Option[Int]]

  /**
   * The wire version in which the table's region servers run the server jar's aggregation
   * coprocessor, or None: asked of the region server of the first of `through` (regions of the plan,
   * on servers not known to lack the jar) that holds a row.
   */
  def aggregator(through: Seq[RegionInfo]): Option[Int]

  /** The chunks of a built range index that the planner may prune by now; asked only for an index the WHERE clause uses. */
  def rangeIndex(index: RangeIndexDef): IndexChunks = IndexChunks(index, Nil, Nil)

  /** A global index's HBase table: its regions and size, when HBase says; asked only for an index the planner may use. */
  def globalIndexTable(index: GlobalIndexDef): Option[IndexTableFacts] = None

  /**
   * The wire version in which the region servers of a global index's HBase table aggregate its
   * rows, or None ([[aggregator]], asked through `through`, regions of that table).
   */
  def indexAggregator(index: GlobalIndexDef, through: Seq[RegionInfo]): Option[Int] = None
}

/** The regions of a global index's HBase table, in key order, and the bytes it holds. */
final case class IndexTableFacts(regions: Seq[RegionInfo], bytes: BigInt)
