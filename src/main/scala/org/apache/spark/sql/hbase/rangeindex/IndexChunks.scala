// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.hbase.metadata.RangeIndexDef

/** The chunks of a build of `index`, and those the planner may prune by (`trusted`, widened by recorded writes). */
final case class IndexChunks(index: RangeIndexDef, chunks: Seq[ChunkStats], trusted: Seq[ChunkStats]) {
  def total: Int = chunks.size
  def untrusted: Int = chunks.size - trusted.size
}
