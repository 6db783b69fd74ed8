// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.logical

/**
 * What a query's hints say about a table's global indexes: `/*+ INDEX(t, i [, j ...]) */` to read
 * through one of the indexes named where the WHERE clause can use it, `/*+ NO_INDEX(t) */` to
 * read none. Without a hint the planner chooses.
 */
sealed trait IndexHint

object IndexHint {
  case object Free extends IndexHint

  case object NoIndex extends IndexHint

  final case class Use(indexes: Seq[String]) extends IndexHint {
    def names(index: String): Boolean = indexes.exists(_.equalsIgnoreCase(index))
  }

  /** The hints' names, as Spark's parser hands them over (upper case). */
  val IndexName = "INDEX"
  val NoIndexName = "NO_INDEX"
}
