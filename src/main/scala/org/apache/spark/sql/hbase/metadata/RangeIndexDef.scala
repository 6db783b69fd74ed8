// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import java.util.Locale

import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * A min/max range index of a table: per chunk of about `chunkRows` rows of the key space, the
 * row count and each of `columns`' min, max and NULL count. `generation` is the build the
 * planner reads (the server time it began); None until the first build is finished.
 */
final case class RangeIndexDef(name: String, columns: Seq[String], chunkRows: Int, generation: Option[Long]) {
  def isReady: Boolean = generation.isDefined
}

object RangeIndexDef {
  val DefaultChunkRows = 4096
  val Type = "minmax"

  /** The index a CREATE INDEX statement describes, checked against the table. */
  def fromStatement(
      table: HBaseTableDef,
      name: String,
      indexType: Option[String],
      columns: Seq[String],
      options: Map[String, String]
  ): RangeIndexDef = {
    def fail(msg: String) = throw new HBaseSQLException(s"CREATE INDEX $name ON ${table.name}: $msg")
    indexType.filterNot(_.equalsIgnoreCase(Type)).foreach(t =>
      fail(s"index type '$t' is not supported; use USING $Type")
    )
    if (columns.isEmpty) fail("name at least one column")
    columns.groupBy(_.toLowerCase(Locale.ROOT)).collect { case (_, cs) if cs.size > 1 => cs.head }
      .headOption.foreach(c => fail(s"column '$c' is named twice"))
    val canonical = columns.map { c =>
      if (!table.hasColumn(c)) fail(s"column '$c' does not exist in table '${table.name}'")
      val column = table.column(c)
      if (column.isKey) fail(s"'${column.name}' is a key column; key ranges already prune by it")
      if (column.isWriteTime)
        fail(s"'${column.name}' is the write time of cell ${column.writeTimeOf.get}; an index holds values")
      column.name
    }
    val chunkRows = options.foldLeft(DefaultChunkRows) {
      case (_, (key, value)) if key.equalsIgnoreCase("chunkRows") =>
        value.toIntOption.filter(
          _ > 0
        ).getOrElse(fail(s"OPTIONS chunkRows must be a positive whole number, not '$value'"))
      case (_, (key, _)) => fail(s"unknown option '$key'; the one option is chunkRows")
    }
    RangeIndexDef(name, canonical, chunkRows, generation = None)
  }
}
