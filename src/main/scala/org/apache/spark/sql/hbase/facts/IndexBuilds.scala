// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, RangeIndexDef}
import org.apache.spark.sql.hbase.rangeindex.{ChunkStats, IndexChunks, RangeIndexStore}

/**
 * The range index builds statements use: a build's chunks are read once and kept, as they never
 * change (a new build has a new generation); write marks are read for every plan, since a mark
 * must count from the moment it is written.
 */
object IndexBuilds {

  /** The chunks of build `generation` of `index`, in key order. */
  def chunks(store: RangeIndexStore, table: HBaseTableDef, index: RangeIndexDef, generation: Long): Seq[ChunkStats] =
    FactsCache.get(
      FactsCache.Build(
        store.cluster,
        store.name.getNameAsString,
        table.hbaseTable,
        table.name.toLowerCase(java.util.Locale.ROOT),
        index.name.toLowerCase(java.util.Locale.ROOT),
        generation
      ),
      Long.MaxValue
    )(store.chunks(table, index, generation))

  /** The chunks of the finished build of `index` that the planner may prune by now. */
  def usable(store: RangeIndexStore, table: HBaseTableDef, index: RangeIndexDef, skewMs: Long): IndexChunks =
    index.generation match {
      case Some(generation) =>
        store.usable(table, index, generation, chunks(store, table, index, generation), skewMs)
      case None => IndexChunks(index, Nil, Nil)
    }
}
