// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.types.DataType

/**
 * What a table's range indexes tell Spark's optimizer: its row count and its indexed columns'
 * bounds and NULL counts, as of their last builds. Estimates only: nothing is pruned by them.
 */
final case class TableStatistics(rowCount: BigInt, columns: Map[String, ColumnStats])

object TableStatistics {

  /** @param builds each built index's chunks, the most recent build first */
  def of(table: HBaseTableDef, builds: Seq[Seq[ChunkStats]]): Option[TableStatistics] =
    builds.headOption.map { newest =>
      val typeOf: String => DataType = table.column(_).dataType
      val columns = builds.flatten.flatMap(_.columns).groupBy(_._1).map { case (name, stats) =>
        name -> stats.map(_._2).reduce(ColumnStatsBuilder.merge(typeOf(name), _, _))
      }
      TableStatistics(newest.map(c => BigInt(c.rowCount)).sum, columns)
    }
}
