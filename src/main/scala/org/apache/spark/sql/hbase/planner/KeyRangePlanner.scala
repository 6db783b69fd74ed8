// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.codec.KeyBounds
import org.apache.spark.sql.catalyst.types.PhysicalDataType
import org.apache.spark.sql.types.{AtomicType, BooleanType, DataType, StringType}
import org.apache.spark.unsafe.types.UTF8String

/**
 * Partial evaluation of a WHERE clause against the composite row key, as pure functions.
 *
 * For each key column in turn, the values the predicate compares it with split the column's
 * domain into points and the open intervals between them. The predicate is evaluated on each
 * piece with three-valued logic, every piece at once ([[KeyColumn]]: each term once, so that an
 * OR of n key equalities costs n log n, not n squared): pieces where it is certainly false are
 * dropped; a point goes on to the next key column with that value substituted. The result is a set of critical
 * ranges, each a prefix of points followed by one range. Anything the evaluator cannot decide
 * is "unknown" and keeps its rows, so a predicate it does not understand never loses rows; Spark
 * still evaluates the whole predicate on what the scan returns.
 */
object KeyRangePlanner {
  import Truth._

  /**
   * A piece of one key column's domain: a critical point, or the open interval between two.
   * Every value in an exact piece compares alike with every critical point; a coarse piece
   * (many points lumped together) decides nothing.
   */
  private[planner] final case class Piece(range: ColumnRange, exact: Boolean = true) {
    def point: Option[Any] = if (range.isPoint) Some(range.lower.get.value) else None
  }

  /**
   * @param keys     the key columns in row key order
   * @param usable    how many leading key columns may be pruned by value (the codec decides)
   * @param canRange  whether a key column may be pruned by a range, not only by points
   * @param maxRanges above this many ranges, a key column is covered by one coarser range
   */
  def plan(
      keys: Seq[Attribute],
      usable: Int,
      canRange: Int => Boolean,
      condition: Expression,
      maxRanges: Int
  ): KeyRanges = {
    val ranges =
      planColumn(keys.take(usable), canRange, 0, Vector.empty, OrderPreservingCasts.unwrap(condition, keys), maxRanges)
    if (ranges == Seq(KeyRange(Vector.empty, None))) KeyRanges.FullScan else KeyRanges.Ranges(ranges)
  }

  private def planColumn(
      keys: Seq[Attribute],
      canRange: Int => Boolean,
      dim: Int,
      prefix: Vector[Any],
      condition: Expression,
      maxRanges: Int
  ): Seq[KeyRange] = {
    val everything = Seq(KeyRange(prefix, None))
    if (dim == keys.size) return everything
    val key = keys(dim)
    val column = new KeyColumn(condition, key)
    val points = column.points
    val truth = evaluator(condition, key, column.ordering)
    if (points.isEmpty) return if (truth(Piece(ColumnRange.All)) == False) Nil else everything

    val parts: Seq[Seq[KeyRange]] =
      if (points.size > maxRanges) { // huge IN lists: bound the work
        coarsePieces(points).filter(truth(_) != False).map(piece => Seq(KeyRange(prefix, Some(piece.range))))
      } else {
        keptPieces(column).map {
          case p if column.isPoint(p) =>
            val value = points(column.pointOf(p))
            // The last key column needs no substitution: every row of the point is kept.
            if (dim + 1 == keys.size) Seq(KeyRange(prefix :+ value, None))
            else planColumn(keys, canRange, dim + 1, prefix :+ value, column.atPoint(column.pointOf(p)), maxRanges)
          case p => Seq(KeyRange(prefix, Some(column.pieceAt(p).range)))
        }
      }
    val merged = mergeAdjacent(prefix, parts)
    val rangesHere = merged.exists(r => r.prefix == prefix && r.last.isDefined)
    if (rangesHere && !canRange(dim)) everything
    else if (merged.size > maxRanges) Seq(hull(prefix, merged))
    else merged
  }

  /** The pieces of a column where its condition is not certainly FALSE, in key order. */
  private def keptPieces(column: KeyColumn): Seq[Int] = {
    val truths = column.truths
    (0 until truths.runs).filter(truths.valueOf(_) != False).flatMap(r => truths.startOf(r) until truths.endOf(r))
  }

  /**
   * Whether `condition` is certainly TRUE on every row of `range`, so that a scan reading only
   * that range need not check it. `keys` are the usable key columns, as given to [[plan]].
   */
  def holdsThroughout(condition: Expression, keys: Seq[Attribute], range: KeyRange): Boolean =
    holdsThroughout(condition, keys)(range)

  /**
   * [[holdsThroughout]] of one condition, prepared for many ranges: the condition is seen along
   * each key column once per leading values, and kept, so that the thousands of ranges of a long
   * IN list or OR cost little more than one.
   */
  def holdsThroughout(condition: Expression, keys: Seq[Attribute]): KeyRange => Boolean = {
    lazy val unwrapped = OrderPreservingCasts.unwrap(condition, keys)
    lazy val lastOrdering = orderingOf(keys.last.dataType)
    val fixed = mutable.Map.empty[Seq[Any], Expression] // the condition with these leading values put in
    val columns = mutable.Map.empty[Seq[Any], KeyColumn] // ... seen along the next key column
    def fixedAt(prefix: Seq[Any]): Expression =
      if (prefix.isEmpty) unwrapped else fixed.getOrElseUpdate(prefix, columnAt(prefix.init).atValue(prefix.last))
    def columnAt(prefix: Seq[Any]): KeyColumn =
      columns.getOrElseUpdate(prefix, new KeyColumn(fixedAt(prefix), keys(prefix.size)))
    range => {
      val prefix = range.prefix.take(keys.size)
      if (prefix.size == keys.size) {
        evaluator(fixedAt(prefix), keys.last, lastOrdering)(Piece(ColumnRange.All)) == True
      } else columnAt(prefix).holdsWithin(range.last.getOrElse(ColumnRange.All))
    }
  }

  /**
   * The values of key column `keys(dim)` for which `condition` may hold when the leading key
   * columns hold `prefix`, whatever the other columns hold: sorted disjoint ranges (none when
   * it cannot hold), or None when that is every value.
   */
  def valuesOf(
      condition: Expression,
      keys: Seq[Attribute],
      prefix: Seq[Any],
      dim: Int,
      maxRanges: Int
  ): Option[Seq[ColumnRange]] = {
    val key = keys(dim)
    val unwrapped = prefix.zip(keys).foldLeft(OrderPreservingCasts.unwrap(condition, keys)) {
      case (e, (value, k)) => substitute(e, k, value)
    }
    val column = new KeyColumn(unwrapped, key)
    val points = column.points
    val kept =
      if (points.size > maxRanges) {
        val truth = evaluator(unwrapped, key, column.ordering)
        coarsePieces(points).filter(p => truth(p) != False).map(_.range)
      } else keptPieces(column).map(column.pieceAt(_).range)
    val merged = kept.foldLeft(Vector.empty[ColumnRange]) {
      case (done :+ last, r) if touches(last, r) => done :+ ColumnRange(last.lower, r.upper)
      case (done, r) => done :+ r
    }
    if (merged == Seq(ColumnRange.All)) None else Some(merged)
  }

  /** Whether two ranges may share a value; open intervals with nothing between them count as sharing. */
  private[planner] def overlaps(a: ColumnRange, b: ColumnRange, ordering: Ordering[Any]): Boolean = {
    def mayBeBelow(lower: Option[Bound], upper: Option[Bound]): Boolean = (lower, upper) match {
      case (Some(lo), Some(hi)) =>
        val c = ordering.compare(lo.value, hi.value)
        c < 0 || (c == 0 && lo.inclusive && hi.inclusive)
      case _ => true
    }
    mayBeBelow(a.lower, b.upper) && mayBeBelow(b.lower, a.upper)
  }

  /** Below the smallest point, between smallest and largest (undecided), above the largest. */
  private def coarsePieces(points: Seq[Any]): Seq[Piece] = Seq(
    Piece(ColumnRange(None, Some(Bound(points.head, inclusive = false)))),
    Piece(
      ColumnRange(Some(Bound(points.head, inclusive = true)), Some(Bound(points.last, inclusive = true))),
      exact = false
    ),
    Piece(ColumnRange(Some(Bound(points.last, inclusive = false)), None))
  )

  /** Neighbouring pieces that constrain no later column become one range on this column. */
  private def mergeAdjacent(prefix: Vector[Any], parts: Seq[Seq[KeyRange]]): Seq[KeyRange] = {
    def asColumnRange(part: Seq[KeyRange]): Option[ColumnRange] = part match {
      case Seq(KeyRange(p, None)) if p.size == prefix.size + 1 => Some(ColumnRange.point(p.last))
      case Seq(KeyRange(p, Some(r))) if p == prefix => Some(r)
      case _ => None
    }
    val out = Vector.newBuilder[KeyRange]
    var open: Option[ColumnRange] = None
    def flush(): Unit = { open.foreach(r => out += KeyRange(prefix, Some(r))); open = None }
    parts.foreach { part =>
      (asColumnRange(part), open) match {
        case (Some(r), Some(o)) if touches(o, r) => open = Some(ColumnRange(o.lower, r.upper))
        case (Some(r), _) => flush(); open = Some(r)
        case (None, _) => flush(); out ++= part
      }
    }
    flush()
    out.result().map {
      case KeyRange(p, Some(r)) if r.isPoint => KeyRange(p :+ r.lower.get.value, None)
      case KeyRange(p, Some(ColumnRange(None, None))) => KeyRange(p, None)
      case other => other
    }
  }

  /** Pieces come in order, so two ranges touch when one ends where the other starts. */
  private def touches(a: ColumnRange, b: ColumnRange): Boolean = (a.upper, b.lower) match {
    case (Some(Bound(x, i1)), Some(Bound(y, i2))) => x == y && (i1 || i2)
    case _ => false
  }

  private def hull(prefix: Vector[Any], ranges: Seq[KeyRange]): KeyRange = {
    def lowerOf(r: KeyRange): Option[Bound] =
      if (r.prefix.size > prefix.size) Some(Bound(r.prefix(prefix.size), inclusive = true)) else r.last.flatMap(_.lower)
    def upperOf(r: KeyRange): Option[Bound] =
      if (r.prefix.size > prefix.size) Some(Bound(r.prefix(prefix.size), inclusive = true)) else r.last.flatMap(_.upper)
    KeyRange(prefix, Some(ColumnRange(lowerOf(ranges.head), upperOf(ranges.last))))
  }

  /** A non-null constant of the key's type, if `e` is one. */
  private[planner] def constant(e: Expression, key: Attribute): Option[Any] =
    if (e.foldable && e.dataType == key.dataType && e.deterministic) Option(e.eval()) else None

  private[planner] def isKey(e: Expression, key: Attribute): Boolean = e match {
    case a: Attribute => a.semanticEquals(key)
    case _ => false
  }

  /** `k LIKE 'p%'` is `p <= k < end`, where `end` is the least string above every one starting with p. */
  private[planner] def prefixBounds(prefix: Any): (UTF8String, Option[UTF8String]) = {
    val p = prefix.asInstanceOf[UTF8String]
    val end = KeyBounds.prefixEnd(p.getBytes)
    (p, if (end.isEmpty) None else Some(UTF8String.fromBytes(end)))
  }

  private[planner] def criticalPoints(condition: Expression, key: Attribute): Seq[Any] = condition.collect {
    case StartsWith(k, p) if isKey(k, key) && key.dataType == StringType =>
      constant(p, key).toSeq.flatMap { v =>
        val (lo, hi) = prefixBounds(v); lo +: hi.toSeq
      }
    case c: BinaryComparison if isKey(c.left, key) => constant(c.right, key).toSeq
    case c: BinaryComparison if isKey(c.right, key) => constant(c.left, key).toSeq
    case In(k, list) if isKey(k, key) => list.flatMap(constant(_, key))
    case InSet(k, set) if isKey(k, key) => set.toSeq.filter(_ != null)
  }.flatten

  /**
   * `condition` over pieces of `key`'s domain, one piece at a time: for the coarse pieces of huge IN
   * lists and single pieces ([[KeyColumn]] decides every fine piece at once). The values of each
   * IN list are sorted once, so that a piece is looked up in them rather than compared with each.
   */
  private def evaluator(condition: Expression, key: Attribute, ordering: Ordering[Any]): Piece => Truth = {
    val members = new Members(ordering)
    piece => evaluate(condition, key, piece, ordering, members)
  }

  /** The values of each IN list, sorted on first use; None for a list with a NULL or non-constant element. */
  private final class Members(ordering: Ordering[Any]) {
    private val sorted = new java.util.IdentityHashMap[Expression, Option[Array[Any]]]()

    def of(in: Expression, values: => Seq[Option[Any]]): Option[Array[Any]] = {
      if (!sorted.containsKey(in)) {
        val all = values
        sorted.put(in, if (all.exists(_.isEmpty)) None else Some(all.flatten.sorted(ordering).toArray))
      }
      sorted.get(in)
    }

    /** Whether sorted `values` hold one equal to `v`: a binary search. */
    def holds(values: Array[Any], v: Any): Boolean = {
      var (lo, hi) = (0, values.length)
      while (lo < hi) {
        val mid = (lo + hi) >>> 1
        if (ordering.lt(values(mid), v)) lo = mid + 1 else hi = mid
      }
      lo < values.length && ordering.equiv(values(lo), v)
    }
  }

  private def evaluate(
      e: Expression,
      key: Attribute,
      piece: Piece,
      ordering: Ordering[Any],
      members: Members
  ): Truth = {
    def loop(e: Expression): Truth = e match {
      case And(a, b) => (loop(a), loop(b)) match {
          case (False, _) | (_, False) => False
          case (True, True) => True
          case _ => Unknown
        }
      case Or(a, b) => (loop(a), loop(b)) match {
          case (True, _) | (_, True) => True
          case (False, False) => False
          case _ => Unknown
        }
      case Not(a) => loop(a) match {
          case True => False
          case False => True
          case Unknown => Unknown
        }
      case IsNull(k) if isKey(k, key) => False
      case IsNotNull(k) if isKey(k, key) => True
      case c: BinaryComparison if !piece.exact && (isKey(c.left, key) || isKey(c.right, key)) => Unknown
      case In(k, _) if !piece.exact && isKey(k, key) => Unknown
      case StartsWith(k, _) if !piece.exact && isKey(k, key) => Unknown
      case StartsWith(k, p) if isKey(k, key) && key.dataType == StringType =>
        constant(p, key).map { v =>
          val (lo, hi) = prefixBounds(v)
          // Both bounds are critical points, so the piece lies wholly inside [lo, hi) or outside it.
          val inside = piece.point match {
            case Some(x) => x.asInstanceOf[UTF8String].startsWith(lo)
            case None => piece.range.lower.exists(b => ordering.compare(b.value, lo) >= 0) &&
              hi.forall(h => piece.range.upper.exists(b => ordering.compare(b.value, h) <= 0))
          }
          if (inside) True else False
        }.getOrElse(Unknown)
      case InSet(k, _) if !piece.exact && isKey(k, key) => Unknown
      case c: BinaryComparison if isKey(c.left, key) =>
        constant(c.right, key).map(v => compare(c, piece, v, ordering, flipped = false)).getOrElse(Unknown)
      case c: BinaryComparison if isKey(c.right, key) =>
        constant(c.left, key).map(v => compare(c, piece, v, ordering, flipped = true)).getOrElse(Unknown)
      case in @ In(k, list) if isKey(k, key) =>
        members.of(in, list.map(constant(_, key))) match {
          case None => Unknown // a NULL or non-constant element
          case Some(values) => if (piece.point.exists(members.holds(values, _))) True else False
        }
      case in @ InSet(k, set) if isKey(k, key) =>
        members.of(in, set.toSeq.map(Option(_))) match {
          case None => Unknown // NULL in the set
          case Some(values) => if (piece.point.exists(members.holds(values, _))) True else False
        }
      case other if other.foldable && other.dataType == org.apache.spark.sql.types.BooleanType =>
        other.eval() match {
          case true => True
          case false => False
          case _ => Unknown // NULL: not false, so not safe to negate
        }
      case _ => Unknown
    }
    loop(e)
  }

  /** `key op v` (or `v op key` when flipped) over a piece, where v is one of the critical points. */
  private def compare(c: BinaryComparison, piece: Piece, v: Any, ordering: Ordering[Any], flipped: Boolean): Truth = {
    // Sign of (key - v) over the whole piece: every key value in it compares to v the same way.
    val sign = piece.point match {
      case Some(p) => Integer.signum(ordering.compare(p, v))
      case None =>
        val below = piece.range.upper.exists(b => ordering.compare(b.value, v) <= 0)
        if (below) -1 else 1
    }
    val s = if (flipped) -sign else sign
    val holds = c match {
      case _: EqualTo | _: EqualNullSafe => s == 0
      case _: LessThan => s < 0
      case _: LessThanOrEqual => s <= 0
      case _: GreaterThan => s > 0
      case _: GreaterThanOrEqual => s >= 0
      case _ => return Unknown
    }
    if (holds) True else False
  }

  /**
   * `condition` with `value` for `key`, and what that decides folded away: of a long OR of key
   * equalities only the terms for this value are left, so later key columns see only those.
   */
  private[planner] def substitute(condition: Expression, key: Attribute, value: Any): Expression = {
    val put: PartialFunction[Expression, Expression] = {
      case a: Attribute if a.semanticEquals(key) => Literal(value, key.dataType)
    }
    condition transformUp put.orElse(folding)
  }

  /** `e` with what its literals decide folded away, as [[substitute]] folds it. */
  private[planner] def fold(e: Expression): Expression = e transformUp folding

  private val folding: PartialFunction[Expression, Expression] = {
    case c: BinaryComparison if c.left.isInstanceOf[Literal] && c.right.isInstanceOf[Literal] => decided(c)
    case in @ In(_: Literal, list) if list.forall(_.isInstanceOf[Literal]) => decided(in)
    case in @ InSet(_: Literal, _) => decided(in)
    case And(a, b) if isFalse(a) || isFalse(b) => Literal.FalseLiteral
    case And(a, b) if isTrue(a) => b
    case And(a, b) if isTrue(b) => a
    case Or(a, b) if isTrue(a) || isTrue(b) => Literal.TrueLiteral
    case Or(a, b) if isFalse(a) => b
    case Or(a, b) if isFalse(b) => a
    case Not(Literal(v: Boolean, BooleanType)) => Literal(!v)
  }

  /** A balanced tree of `op` over `parts` (at least one), as Spark's parser builds a long chain: shallow to walk. */
  private[planner] def balanced(
      parts: IndexedSeq[Expression],
      op: (Expression, Expression) => Expression
  ): Expression = {
    def build(from: Int, until: Int): Expression =
      if (until - from == 1) parts(from)
      else { val mid = (from + until) >>> 1; op(build(from, mid), build(mid, until)) }
    build(0, parts.size)
  }

  /** A test between literals, as its outcome (NULL stays NULL, which neither AND nor OR folds). */
  private def decided(e: Expression): Expression = Literal.create(e.eval(), BooleanType)

  private def isTrue(e: Expression): Boolean = e == Literal.TrueLiteral
  private def isFalse(e: Expression): Boolean = e == Literal.FalseLiteral

  /**
   * Spark's ordering of non-null values of a key's type. For an atomic type it is what
   * InterpretedOrdering compares with, used directly: sorting and searching thousands of points
   * need not wrap each value in a row.
   */
  private[planner] def orderingOf(dataType: DataType): Ordering[Any] = dataType match {
    case _: AtomicType => PhysicalDataType(dataType).ordering.asInstanceOf[Ordering[Any]]
    case _ => InterpretedOrdering.forSchema(Seq(dataType)).on[Any](v => new GenericInternalRow(Array[Any](v)))
  }
}
