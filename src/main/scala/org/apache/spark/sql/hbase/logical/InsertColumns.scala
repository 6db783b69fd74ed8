// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.logical

import org.apache.spark.sql.catalyst.analysis.TableOutputResolver
import org.apache.spark.sql.catalyst.expressions.{Alias, Literal}
import org.apache.spark.sql.catalyst.plans.logical.{LogicalPlan, Project}
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.internal.SQLConf

/** How the rows written to a table (by INSERT, or by the streaming sink) line up with its columns. */
object InsertColumns {

  /**
   * Lines the query up with the table's columns, casting as Spark's own INSERT does: by position,
   * or by the names given (the others NULL).
   */
  def align(
      relation: HBaseRelation,
      insertQuery: LogicalPlan,
      userSpecifiedCols: Seq[String],
      conf: SQLConf
  ): LogicalPlan = {
    val table = relation.table

    // Write times are set by HBase: the query gives the other columns, and the write holds NULL for them.
    val writable = relation.output.zip(table.columns).filterNot(_._2.isWriteTime)
    val query = if (userSpecifiedCols.isEmpty) insertQuery
    else {
      val named = userSpecifiedCols.map(table.column)
      named.find(_.isWriteTime).foreach { c =>
        throw new HBaseSQLException(s"INSERT INTO ${table.name} (${c.name}): '${c.name}' is the write time of cell " +
          s"${c.writeTimeOf.get}, which HBase sets when the cell is written; leave it out")
      }
      if (named.size != insertQuery.output.size) {
        throw new HBaseSQLException(
          s"INSERT INTO ${table.name} names ${named.size} columns but the query gives ${insertQuery.output.size}"
        )
      }
      table.keys.filterNot(named.contains).headOption.foreach { k =>
        throw new HBaseSQLException(s"INSERT INTO ${table.name} must give key column '${k.name}'")
      }
      val byColumn = named.zip(insertQuery.output).toMap
      Project(
        writable.map { case (attr, column) =>
          byColumn.get(column).map(a => Alias(a, attr.name)())
            .getOrElse(Alias(Literal(null, attr.dataType), attr.name)())
        },
        insertQuery
      )
    }
    // Key columns are checked for NULL by the codec, whose error names the table and column.
    val expected = writable.map(_._1.withNullability(true))
    val aligned = TableOutputResolver.resolveOutputColumns(table.name, expected, query, byName = false, conf)
    if (table.writeTimes.isEmpty) aligned
    else {
      val values = aligned.output.iterator
      Project(
        relation.output.zip(table.columns).map { case (attr, column) =>
          if (column.isWriteTime) Alias(Literal(null, attr.dataType), attr.name)() else values.next()
        },
        aligned
      )
    }
  }
}
