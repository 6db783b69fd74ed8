// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.nio.ByteBuffer

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.client.{Result, ResultScanner}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{
  Ascending, Attribute, BoundReference, Descending, InterpretedOrdering, SortOrder
}
import org.apache.spark.sql.hbase.codec.KeyBounds
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.globalindex.{IndexMarks, IndexSpecs}
import org.apache.spark.sql.hbase.planner.{IndexAnswer, IndexLookup, IndexOrder, RowRanges, TableScanPlan}

/** The run-time read of an [[IndexOrder]]: the rows of an ORDER BY ... LIMIT, read in an index's order. */
object IndexOrderRead {

  /** The rows read (None: the index could not answer, and the scan reads as planned), and how many index rows. */
  final case class Outcome(rows: Option[Array[InternalRow]], indexRowsRead: Long)

  /**
   * Reads the index rows of `plan`'s [[IndexOrder]] in its order, a batch at a time (twice the
   * rows of the last, from twice the limit), and `read`s the data rows each batch names that no
   * earlier one did (a covering index answers for those it can trust), keeping those that pass
   * the WHERE clause, until the limit of them have a value of the order's column before that of
   * the last index row read. Then, as for a lookup, the data rows whose index rows in the part
   * read changed since the read began, less the lookup's `recentWritesMillis`, are read too:
   * they may have moved into it during the read. Spark's top-n orders all of them.
   *
   * None, to read without the index, when the index names more rows than the lookup takes, when
   * it runs out first without naming every row the clause may keep (NULLs), or when a bulk load
   * left part of it untrusted.
   */
  def apply(plan: TableScanPlan, output: Seq[Attribute], read: TableScanPlan => Array[InternalRow]): Outcome = {
    val order = plan.indexOrder.getOrElse(throw new IllegalArgumentException("the plan reads in no index's order"))
    val lookup = order.lookup
    val table = plan.request.table
    val at = output.indexWhere(_.exprId == order.column.exprId)
    val since = System.currentTimeMillis() - lookup.recentWritesMillis
    if (at < 0) return Outcome(None, 0)
    val spec = IndexSpecs.of(table, lookup.index)
    val layout = IndexLookup.layoutOf(table, lookup.index)
    val ordering = new InterpretedOrdering(Seq(
      SortOrder(
        BoundReference(0, order.column.dataType, nullable = true),
        if (order.descending) Descending else Ascending
      )
    ))
    def before(value: Any, last: Any) =
      value != null && last != null && ordering.compare(InternalRow(value), InternalRow(last)) < 0
    // What each batch reads: the rows it names, by Gets or from the index, and nothing else.
    val base = plan.copy(
      request = plan.request.copy(topN = None, limits = plan.request.limits.copy(maxRows = None)),
      indexLookup = Some(lookup),
      indexOrder = None
    )
    val ranges = if (order.descending) lookup.rows.ranges.reverse else lookup.rows.ranges
    HBaseConnections.withConnection(plan.request.cluster) { connection =>
      val index = connection.getTable(lookup.index.indexTable.hbase)
      val scanners = mutable.ArrayBuffer.empty[ResultScanner]
      try {
        val marks = IndexMarks.of(index)
        if (marks.untrusted.nonEmpty) return Outcome(None, 0)
        val covered =
          if (lookup.covering && IndexKeysRead.expiring(connection, table, lookup.index).isEmpty)
            Some(IndexSpecs.coveredCellsInRowOrder(table, lookup.index))
          else None
        val indexRows: Iterator[Result] = ranges.iterator.flatMap { range =>
          val scan = IndexKeysRead.indexScan(table, lookup).setCaching(math.min(2 * order.limit + 1, 1000))
          // From the top down: the range's end is not in it, unless it is open (the last row on).
          if (order.descending) scan.setReversed(true).withStopRow(range.start, true).withStartRow(
            range.stop,
            range.stop.isEmpty
          )
          else scan.withStartRow(range.start).withStopRow(range.stop)
          val scanner = index.getScanner(scan)
          scanners += scanner
          scanner.iterator().asScala
        }
        val seen = mutable.HashSet.empty[ByteBuffer]
        def unseen(key: Array[Byte]) = key != null && seen.add(ByteBuffer.wrap(key))
        val rows = Array.newBuilder[InternalRow]
        var (indexRowsRead, counted, batch) = (0, 0, math.max(2 * order.limit, 16))
        var last: Array[Byte] = null
        var exhausted = false
        while (counted < order.limit && !exhausted) {
          val named = next(indexRows, math.min(batch, lookup.maxRows - indexRowsRead + 1))
          indexRowsRead += named.size
          if (indexRowsRead > lookup.maxRows) return Outcome(None, indexRowsRead)
          exhausted = !indexRows.hasNext
          if (named.nonEmpty) {
            last = named.last.getRow
            val fresh = named.filter(r => unseen(spec.dataRowOf(r.getRow)))
            val answer = covered.fold(IndexAnswer(fresh.map(r => spec.dataRowOf(r.getRow)), Nil))(cells =>
              IndexKeysRead.answered(fresh, spec, cells, marks, Nil)
            )
            val found =
              if (answer.rows.isEmpty && answer.covered.isEmpty) Array.empty[InternalRow]
              else read(IndexLookup.narrow(base, Some(answer)))
            val lastValue = layout.values(last) match {
              case null => null
              case values => values(0)
            }
            counted += found.count(r => before(r.get(at, order.column.dataType), lastValue))
            rows ++= found
          }
          batch = math.min(2L * batch, lookup.maxRows + 1L).toInt
        }
        if (counted < order.limit && !order.complete) Outcome(None, indexRowsRead)
        else {
          // The part of the index read: up to the last row read, or all of it.
          val part = RowRanges(lookup.rows.ranges)
          val readPart =
            if (exhausted || last == null) lookup.rows.ranges
            else if (order.descending) part.clip(last, KeyBounds.Open)
            else part.clip(KeyBounds.Open, KeyBounds.successor(last))
          val left = lookup.maxRows - indexRowsRead + 1
          val changed = IndexKeysRead.changedSince(index, readPart, spec, marks, since, left)
          if (changed.size >= left) Outcome(None, indexRowsRead)
          else {
            val moved = changed.filter(unseen)
            if (moved.nonEmpty) rows ++= read(IndexLookup.narrow(base, Some(IndexAnswer(moved, Nil))))
            Outcome(Some(rows.result()), indexRowsRead)
          }
        }
      } finally {
        scanners.foreach(_.close())
        index.close()
      }
    }
  }

  /** The next `n` elements of `rows`, fewer where it ends; `rows` goes on after them. */
  private def next(rows: Iterator[Result], n: Int): Vector[Result] = {
    val out = Vector.newBuilder[Result]
    var taken = 0
    while (taken < n && rows.hasNext) { out += rows.next(); taken += 1 }
    out.result()
  }
}
