// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{Attribute, Descending, Expression, NullsLast}
import org.apache.spark.sql.hbase.codec.RowRange
import org.apache.spark.sql.hbase.logical.{HBaseRelation, TopNRequest}

/**
 * A collect's step planned for run time that reads an ORDER BY `column` ... LIMIT `limit` in the
 * order of a global index led by that column: the index rows in `lookup`'s ranges, in key order
 * (from the highest down when `descending`), name the data rows to read, a batch at a time, until
 * `limit` of the rows read pass the whole WHERE clause with a value of `column` that the index
 * rows read so far have gone past ([[IndexOrder.plan]] says why that is enough). When the index
 * runs out first, what it named is the answer only if it names every row the clause may keep
 * (`complete`): rows whose indexed columns are all NULL have no index row.
 */
final case class IndexOrder(
    lookup: IndexLookup,
    limit: Int,
    column: Attribute,
    descending: Boolean,
    complete: Boolean
) {
  def describe: String = {
    val kind = if (lookup.covering) "covering global index" else "global index"
    val ranges = lookup.keyRanges match {
      case KeyRanges.FullScan => "every non-NULL value"
      case KeyRanges.Ranges(rs) =>
        s"${rs.size} key ranges ${rs.take(3).mkString(", ")}${if (rs.size > 3) ", ..." else ""}"
    }
    s"a collect reads the first $limit rows by ${column.name}${if (descending) " DESC" else ""} in the order of " +
      s"$kind ${lookup.index.name} [${lookup.index.indexTable}], $ranges (at most ${lookup.maxRows} rows)"
  }
}

object IndexOrder {

  /** Index keys whose leading indexed value is not NULL: they start 0x01 (`IndexKeyLayout`). */
  private val NonNull = RowRange(Array[Byte](1), Array[Byte](2))

  /**
   * The read in index order of an ORDER BY ... LIMIT whose first column leads a ready global index
   * the hints allow (not FLOAT or DOUBLE, whose index keys do not order their values as SQL does).
   *
   * Why the first `limit` rows counted are enough: each counted row passes the clause and has a
   * value of the column strictly before the last index row read, so the query's first `limit` rows
   * do too, and the current index row of each of them lies among those read (its key begins with
   * that value). Rows read whose index rows were stale still pass the clause as read; Spark's top-n
   * above the scan then orders all that was read.
   *
   * NULLs of the column have no place among the index rows read (those of a row with every indexed
   * column NULL do not exist), so the order must put them last, or the clause or the schema must
   * rule them out. The key ranges are those the WHERE clause allows over the index, or every
   * non-NULL value.
   */
  def plan(
      relation: HBaseRelation,
      wanted: TopNRequest,
      where: Option[Expression],
      read: Seq[Attribute],
      maxKeyRanges: Int,
      maxRows: Int,
      covering: Boolean
  ): Option[IndexOrder] = {
    val first = wanted.order.head
    val (indexes, hinted) = IndexLookup.allowed(relation)
    first.child match {
      case a: Attribute
          if wanted.rows > 0 && wanted.rows <= maxRows && relation.output.exists(_.exprId == a.exprId) &&
            !relation.keyAttributes.headOption.exists(_.exprId == a.exprId) =>
        val column = relation.columnOf(a)
        val rejected = !a.nullable || where.exists(IndexLookup.rejectsNull(_, a))
        val candidates = indexes.filter(i =>
          i.isReady && i.columns.head.equalsIgnoreCase(column.name) &&
            IndexLookup.layoutOf(relation.table, i).prunable(0)
        )
        // A covering index answers alone for the rows it can trust.
        val chosen = candidates.sortBy(i => !(covering && IndexLookup.coversAll(relation, i, read))).headOption
        chosen.filter(_ => rejected || first.nullOrdering == NullsLast).map { index =>
          val ranges = where.flatMap(IndexLookup.keyRangesOf(relation, index, _, maxKeyRanges))
          val lookup = IndexLookup(
            index,
            ranges.getOrElse(KeyRanges.FullScan),
            ranges.fold(RowRanges(Seq(NonNull)))(RowRanges(_, IndexLookup.layoutOf(relation.table, index))),
            maxRows,
            hinted = hinted,
            covering = covering && IndexLookup.coversAll(relation, index, read)
          )
          IndexOrder(lookup, wanted.rows, a, first.direction == Descending, complete = rejected)
        }
      case _ => None
    }
  }
}
