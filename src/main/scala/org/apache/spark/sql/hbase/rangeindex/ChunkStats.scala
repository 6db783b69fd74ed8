// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.hbase.codec.RowRange

/**
 * What the rows of one chunk hold in one indexed column. `min` and `max` are Catalyst values of
 * the column's type, None when the chunk has no non-NULL value. Every non-NULL value v of the
 * chunk satisfies min <= v <= max in Spark's order. When `exact`, min and max are values the
 * chunk holds; otherwise they are only bounds (a long string cut to a prefix, as Parquet does).
 */
final case class ColumnStats(min: Option[Any], max: Option[Any], nullCount: Long, exact: Boolean = true) {
  require(min.isDefined == max.isDefined, "min and max are both known or both unknown")
}

/** The statistics of the rows in [range.start, range.stop): their count and each indexed column's stats, by column name. */
final case class ChunkStats(range: RowRange, rowCount: Long, columns: Map[String, ColumnStats])
