// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.logical

import org.apache.spark.sql.catalyst.expressions.SortOrder

/**
 * A query's ORDER BY ... LIMIT `rows` straight over a table, `order` by the table's own columns,
 * as [[HBaseTopNPushdown]] records it on the relation for the planner.
 */
final case class TopNRequest(rows: Int, order: Seq[SortOrder]) {
  override def toString: String = s"top $rows by ${order.map(_.sql).mkString(", ")}"
}
