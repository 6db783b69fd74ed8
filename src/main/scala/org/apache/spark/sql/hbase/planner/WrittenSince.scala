// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.metadata.HBaseColumn
import org.apache.spark.sql.types.{LongType, TimestampType}

/**
 * The families a scan may read from a time on, by the lower bounds a WHERE clause puts on
 * write-time columns: a cell written before `v_written >= t` cannot make the row match, so the
 * family's time range can leave it in HBase. Only a family of which the clause and output need no
 * other cell is narrowed, since the range hides all of its cells; and only from below, since an
 * upper bound would let an older version of the cell show through. Spark still checks the clause.
 */
object WrittenSince extends PredicateHelper {

  /**
   * Epoch milliseconds from which each narrowed family is read.
   *
   * @param columns  the columns the scan reads, for its output and for the clause
   * @param columnOf the table column an attribute of the scan reads
   */
  def plan(
      condition: Expression,
      columns: Seq[HBaseColumn],
      columnOf: Attribute => Option[HBaseColumn]
  ): Map[String, Long] = {
    val bounds = splitConjunctivePredicates(condition).flatMap(lowerBound(_, columnOf))
    val cellsByFamily = columns.flatMap(_.readsCell).distinct.groupBy(_.family)
    bounds.groupBy(_._1).collect {
      case (cell, found) if cellsByFamily.get(cell.family).contains(Seq(cell)) => cell.family -> found.map(_._2).max
    }
  }

  /** The cell and the time a conjunct says its write time is at or after, rounded down to milliseconds. */
  private def lowerBound(conjunct: Expression, columnOf: Attribute => Option[HBaseColumn]) = {
    def bound(a: Attribute, value: Any) = Option(value).zip(columnOf(a)).flatMap { case (v, column) =>
      column.writeTimeOf.zip(column.dataType match {
        case TimestampType => Some(Math.floorDiv(v.asInstanceOf[Long], 1000L))
        case LongType => Some(v.asInstanceOf[Long])
        case _ => None
      })
    }
    conjunct match {
      case GreaterThanOrEqual(a: Attribute, Literal(v, _)) => bound(a, v)
      case GreaterThan(a: Attribute, Literal(v, _)) => bound(a, v)
      case EqualTo(a: Attribute, Literal(v, _)) => bound(a, v)
      case LessThanOrEqual(Literal(v, _), a: Attribute) => bound(a, v)
      case LessThan(Literal(v, _), a: Attribute) => bound(a, v)
      case EqualTo(Literal(v, _), a: Attribute) => bound(a, v)
      case _ => None
    }
  }
}
