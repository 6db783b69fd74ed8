package org.apache.spark.sql.hbase.planning

/**
 * What planning needs to know of a live HBase table. Looking it up is I/O, so it happens outside
 * `planning/` (see `execution.LiveTableFacts`); the planner only reads the answers, and a test
 * can hand it any it likes.
 */
trait TableFacts {
  /** The table's regions, in key order. */
  def regions: Seq[RegionInfo]

  /** Whether the table's region servers run the server jar's filter. */
  def serverFilter: Boolean

  /** Whether the table's region servers run the server jar's aggregation coprocessor. */
  def aggregator: Boolean
}
