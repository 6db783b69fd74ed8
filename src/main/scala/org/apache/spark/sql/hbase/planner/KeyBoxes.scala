// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, Literal}
import org.apache.spark.sql.hbase.codec.{KeyBounds, KeyCodec, RowRange, SliceCheck}
import org.apache.spark.sql.hbase.server.{KeyBox, SliceRange}

/**
 * A box of the key space that a skip scan reads: for each key column, the values it may hold
 * (None: any). The first `fixed` columns are those of the critical key range the box comes
 * from, so they hold exactly the box's row range `rows`; the later ones narrow it further.
 */
final case class KeyBoxPlan(columns: IndexedSeq[Option[Seq[ColumnRange]]], fixed: Int, rows: RowRange) {

  /** Whether the box skips rows that its row range holds. */
  def narrowsRows: Boolean = columns.drop(fixed).exists(_.isDefined)

  override def toString: String = columns.map {
    case None => "*"
    case Some(Seq(r)) if r.isPoint => s"=${r.lower.get.value}"
    case Some(rs) if rs.forall(_.isPoint) => rs.map(_.lower.get.value).mkString("{", ", ", "}")
    case Some(rs) => rs.mkString(" or ")
  }.mkString("(", ", ", ")")
}

/**
 * The key boxes of a query: each critical key range, with the values the WHERE clause allows
 * on every later key column, as far as the codec's slices can check them. `l_linenumber = 3`
 * alone gives one box (*, =3); `k1 BETWEEN 1 AND 9 AND k2 IN (1, 7)` gives ([1, 9], {1, 7}).
 */
object KeyBoxes {

  /** Up to this many critical ranges, each is narrowed by what the predicate allows with its own leading values. */
  private val PerRangeLimit = 64

  /** @param keys every key column, in row key order */
  def apply(
      keyRanges: KeyRanges,
      condition: Option[Expression],
      keys: Seq[Attribute],
      codec: KeyCodec,
      maxRanges: Int
  ): Seq[KeyBoxPlan] = {
    val critical = keyRanges match {
      case KeyRanges.FullScan => Seq(KeyRange(Vector.empty, None))
      case KeyRanges.Ranges(ranges) => ranges
    }
    val where = condition.getOrElse(Literal.TrueLiteral)
    def valuesOf(prefix: Seq[Any], dim: Int): Option[Seq[ColumnRange]] = codec.sliceCheck(dim) match {
      case SliceCheck.Opaque => None
      case check => KeyRangePlanner.valuesOf(where, keys, prefix, dim, maxRanges)
          .filter(rs => check == SliceCheck.Order || rs.forall(_.isPoint))
    }
    // Many ranges (a long IN list) share the values allowed whatever the leading columns hold.
    val shared = if (critical.size <= PerRangeLimit) None else Some(keys.indices.map(valuesOf(Nil, _)))
    critical.flatMap { range =>
      val fixedColumns: IndexedSeq[Option[Seq[ColumnRange]]] =
        range.prefix.map(v => Some(Seq(ColumnRange.point(v)))).toIndexedSeq ++ range.last.map(r => Some(Seq(r)))
      val later = (fixedColumns.size until keys.size).map(dim => shared.fold(valuesOf(range.prefix, dim))(_(dim)))
      val rows = range match {
        case KeyRange(Seq(), None) => RowRange(KeyBounds.Open, KeyBounds.Open)
        case r => RowRanges.rowRangeOf(r, codec)
      }
      val box = KeyBoxPlan(fixedColumns ++ later, fixedColumns.size, rows)
      if (rows.isEmpty || box.columns.exists(_.exists(_.isEmpty))) None else Some(box)
    }.sortWith((a, b) => Bytes.compareTo(a.rows.start, b.rows.start) < 0)
  }

  /** The boxes cut to the row ranges a scan reads: a skip scan then also skips what a range index ruled out. */
  def within(boxes: Seq[KeyBoxPlan], rows: RowRanges): Seq[KeyBoxPlan] =
    boxes.flatMap(box => rows.clip(box.rows.start, box.rows.stop).map(cut => box.copy(rows = cut)))

  /** The box as the region server's filter reads it; None when no key can be in it. */
  def encode(box: KeyBoxPlan, codec: KeyCodec): Option[KeyBox] = {
    val columns = box.columns.zipWithIndex.map {
      case (None, _) => Array(SliceRange.ALL)
      case (Some(ranges), dim) =>
        ranges.flatMap(sliceRange(dim, _, codec)).sortWith((a, b) => Bytes.compareTo(a.start, b.start) < 0).toArray
    }
    if (columns.exists(_.isEmpty)) None else Some(new KeyBox(box.rows.start, box.rows.stop, columns.toArray))
  }

  /** A range of key column values as slices [start, stop); None when it holds no slice. */
  def sliceRange(dim: Int, range: ColumnRange, codec: KeyCodec): Option[SliceRange] = {
    def slice(v: Any) = codec.sliceOf(dim, v)
    val start: Option[(Array[Byte], Boolean)] = range.lower match {
      case None => Some((KeyBounds.Open, false))
      case Some(Bound(v, true)) => Some((slice(v), true))
      case Some(Bound(v, false)) => codec.sliceAfter(dim, slice(v)).map((_, false))
    }
    val stop: Option[Array[Byte]] = range.upper match {
      case None => Some(KeyBounds.Open)
      case Some(Bound(v, true)) => Some(codec.sliceAfter(dim, slice(v)).getOrElse(KeyBounds.Open))
      case Some(Bound(v, false)) => Some(slice(v)).filter(_.nonEmpty) // below the empty slice: nothing
    }
    for {
      (from, isValue) <- start
      until <- stop
      if until.isEmpty || Bytes.compareTo(from, until) < 0
    } yield new SliceRange(from, isValue, until)
  }
}
