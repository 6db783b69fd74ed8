// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.sql.SQLContext
import org.apache.spark.sql.sources.BaseRelation
import org.apache.spark.sql.types.StructType

/**
 * The changes of a table as a relation: what `spark.read.format("hbase").option("changesSince", ...)`,
 * `hbase_changes(...)` and each micro-batch of a stream read. Our planner reads it with an
 * `HBaseChangesScan`, which EXPLAIN shows with its span, and which has the scan metrics.
 */
final case class HBaseChangesRelation(read: ChangeRead)(@transient val sqlContext: SQLContext) extends BaseRelation {

  override def schema: StructType = read.schema

  // The rows are Catalyst's already.
  override def needConversion: Boolean = false

  override def toString: String = read.describe
}
