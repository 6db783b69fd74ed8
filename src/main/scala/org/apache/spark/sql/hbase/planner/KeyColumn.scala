// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.planner.KeyRangePlanner.{
  constant, criticalPoints, fold, isKey, orderingOf, prefixBounds, substitute, Piece
}
import org.apache.spark.sql.types.{BooleanType, StringType}

/**
 * A condition seen along one key column, all pieces at once: the critical points, sorted; the
 * condition's truth on every fine piece between them ([[truths]]); and the condition with each
 * point put for the column ([[atPoint]]), exactly as [[KeyRangePlanner.substitute]] folds it.
 *
 * Evaluating the condition piece by piece costs pieces times terms, which for a long OR of key
 * equalities is the square of its length. Here each term is evaluated once, over every piece, as
 * a few runs of equal truth ([[Steps]]), and ANDs and ORs merge their terms' runs; each point's
 * substitution is rebuilt from the few terms it leaves undecided, not from the whole condition.
 *
 * Pieces are numbered in key order: the gap below point i is piece 2i, point i is piece 2i + 1,
 * and the gap above the last point is piece 2m.
 */
private[planner] final class KeyColumn(condition: Expression, key: Attribute) {
  import Truth._

  val ordering: Ordering[Any] = orderingOf(key.dataType)
  val points: IndexedSeq[Any] = criticalPoints(condition, key).distinct.sorted(ordering).toIndexedSeq
  val pieces: Int = 2 * points.size + 1

  def isPoint(piece: Int): Boolean = piece % 2 == 1
  def pointOf(piece: Int): Int = piece / 2

  def pieceAt(piece: Int): Piece =
    if (isPoint(piece)) Piece(ColumnRange.point(points(pointOf(piece))))
    else {
      val gap = piece / 2
      Piece(ColumnRange(
        if (gap == 0) None else Some(Bound(points(gap - 1), inclusive = false)),
        if (gap == points.size) None else Some(Bound(points(gap), inclusive = false))
      ))
    }

  /** The condition's truth on every piece. */
  lazy val truths: Steps = truthsOf(condition)

  /** The condition with point number `point` for the key, folded as [[KeyRangePlanner.substitute]] folds it. */
  def atPoint(point: Int): Expression = substituted.at(point)

  /** The condition with `value` for the key: from the points' substitutions when it is one of them. */
  def atValue(value: Any): Expression = {
    val here = (lowerIndex(value) until upperIndex(value)).find(i => points(i) == value)
    here.fold(substitute(condition, key, value))(atPoint)
  }

  /** Whether the condition is TRUE on every piece that may share a value with `within`. */
  def holdsWithin(within: ColumnRange): Boolean = {
    // Pieces below the lower bound's point, or above the upper bound's gap, share no value with it.
    val first = within.lower.fold(0)(b => 2 * lowerIndex(b.value))
    val last = within.upper.fold(pieces - 1)(b => 2 * upperIndex(b.value))
    (first to last).forall(p => !KeyRangePlanner.overlaps(pieceAt(p).range, within, ordering) || truths.at(p) == True)
  }

  /** The first point not below `v`. */
  private def lowerIndex(v: Any): Int = search(p => ordering.compare(p, v) >= 0)

  /** The first point above `v`. */
  private def upperIndex(v: Any): Int = search(p => ordering.compare(p, v) > 0)

  /** The first point where `above` holds, for a test that holds from some point on. */
  private def search(above: Any => Boolean): Int = {
    var (lo, hi) = (0, points.size)
    while (lo < hi) {
      val mid = (lo + hi) >>> 1
      if (above(points(mid))) hi = mid else lo = mid + 1
    }
    lo
  }

  private def everywhere(t: Truth): Steps = Steps.constant(pieces, t)

  /**
   * The truth of `e` on every piece, as [[KeyRangePlanner.evaluate]] decides it on each exact
   * piece; the cases follow that function's, in its order.
   */
  private def truthsOf(e: Expression): Steps = e match {
    case And(_, _) => Steps.combine(operandsOf(e, isAnd = true).map(truthsOf), isAnd = true)
    case Or(_, _) => Steps.combine(operandsOf(e, isAnd = false).map(truthsOf), isAnd = false)
    case Not(a) => truthsOf(a).map(Truth.not)
    case IsNull(k) if isKey(k, key) => everywhere(False)
    case IsNotNull(k) if isKey(k, key) => everywhere(True)
    case StartsWith(k, p) if isKey(k, key) && key.dataType == StringType =>
      constant(p, key).fold(everywhere(Unknown))(startingWith)
    case c: BinaryComparison if isKey(c.left, key) =>
      constant(c.right, key).fold(everywhere(Unknown))(v => comparedOverPieces(c, v, flipped = false))
    case c: BinaryComparison if isKey(c.right, key) =>
      constant(c.left, key).fold(everywhere(Unknown))(v => comparedOverPieces(c, v, flipped = true))
    case In(k, list) if isKey(k, key) => membersOverPieces(list.map(constant(_, key)))
    case InSet(k, set) if isKey(k, key) => membersOverPieces(set.toSeq.map(Option(_)))
    case other if other.foldable && other.dataType == BooleanType =>
      everywhere(other.eval() match {
        case true => True
        case false => False
        case _ => Unknown // NULL: not false, so not safe to negate
      })
    case _ => everywhere(Unknown)
  }

  /** Whether `key op v` (or `v op key` when flipped) holds for a key value that compares to v with this sign. */
  private def holdsForSign(c: BinaryComparison, flipped: Boolean): Option[Int => Truth] = {
    val test: Option[Int => Boolean] = c match {
      case _: EqualTo | _: EqualNullSafe => Some(_ == 0)
      case _: LessThan => Some(_ < 0)
      case _: LessThanOrEqual => Some(_ <= 0)
      case _: GreaterThan => Some(_ > 0)
      case _: GreaterThanOrEqual => Some(_ >= 0)
      case _ => None
    }
    test.map(holds => sign => if (holds(if (flipped) -sign else sign)) True else False)
  }

  /** `key op v` on every piece: below v's points, on them, and above. */
  private def comparedOverPieces(c: BinaryComparison, v: Any, flipped: Boolean): Steps =
    holdsForSign(c, flipped).fold(everywhere(Unknown)) { truth =>
      val (lo, hi) = (lowerIndex(v), upperIndex(v))
      val out = new Steps.Builder(pieces).upTo(2 * lo, truth(-1))
      // Points equal to v (one, unless the ordering equates distinct values), and the empty gaps between them.
      (lo until hi).foreach(i => out.upTo(2 * i + 1, truth(-1)).upTo(2 * i + 2, truth(0)))
      out.upTo(pieces, truth(1)).result()
    }

  /** `key IN values` on every piece: TRUE on the points among the values; Unknown if one is NULL or not constant. */
  private def membersOverPieces(values: Seq[Option[Any]]): Steps =
    if (values.exists(_.isEmpty)) everywhere(Unknown)
    else {
      val out = new Steps.Builder(pieces)
      pointsEqualTo(values.flatten).foreach { case (lo, hi) =>
        (lo until hi).foreach(i => out.upTo(2 * i + 1, False).upTo(2 * i + 2, True))
      }
      out.upTo(pieces, False).result()
    }

  /** The runs of points equal to some of `values`, as sorted disjoint index ranges [lo, hi). */
  private def pointsEqualTo(values: Seq[Any]): Seq[(Int, Int)] = {
    val runs = values.map(v => (lowerIndex(v), upperIndex(v))).filter { case (lo, hi) => lo < hi }.sorted
    runs.foldLeft(Vector.empty[(Int, Int)]) {
      case (done :+ ((lo, hi)), (l, h)) if l <= hi => done :+ ((lo, hi max h))
      case (done, run) => done :+ run
    }
  }

  /**
   * `key LIKE 'p%'` on every piece: the strings from p up to the least one above every string
   * starting with p. Both bounds are points, so each piece lies wholly inside or outside.
   */
  private def startingWith(prefix: Any): Steps = {
    val (lo, hi) = prefixBounds(prefix)
    val firstIn = lowerIndex(lo)
    val pointsEnd = hi.fold(points.size)(lowerIndex) // points starting with p: [firstIn, pointsEnd)
    val gapsEnd = hi.fold(points.size + 1)(upperIndex) // gaps inside: [firstIn + 1, gapsEnd)
    val out = new Steps.Builder(pieces).upTo(2 * firstIn + 1, False)
    if (firstIn < pointsEnd) out.upTo(2 * pointsEnd, True)
    ((firstIn + 1) max pointsEnd until gapsEnd).foreach(g => out.upTo(2 * g, False).upTo(2 * g + 1, True))
    out.upTo(pieces, False).result()
  }

  /** The operands of a chain of ANDs (or ORs), left to right, however it nests. */
  private def operandsOf(e: Expression, isAnd: Boolean): IndexedSeq[Expression] = {
    val out = Vector.newBuilder[Expression]
    val stack = mutable.Stack(e)
    while (stack.nonEmpty) stack.pop() match {
      case And(a, b) if isAnd => stack.push(b, a)
      case Or(a, b) if !isAnd => stack.push(b, a)
      case other => out += other
    }
    out.result()
  }

  private def mentionsKey(e: Expression): Boolean = e.exists(isKey(_, key))

  /** The condition's parts, each with what it folds to at every point. */
  private lazy val substituted: Substituted = substitutedOf(condition)

  /**
   * A part of the condition with each point put for the key: `folds` says, point by point,
   * whether it folds to TRUE, to FALSE or stays an expression (Unknown), as [[substitute]]'s
   * rules fold it; `at` is what it becomes there.
   */
  private sealed abstract class Substituted {
    def folds: Steps
    def at(point: Int): Expression
  }

  private def literalOf(t: Truth): Literal = t match {
    case True => Literal.TrueLiteral
    case False => Literal.FalseLiteral
    case Unknown => Literal.create(null, BooleanType)
  }

  private def foldsOf(e: Expression): Truth = e match {
    case Literal.TrueLiteral => True
    case Literal.FalseLiteral => False
    case _ => Unknown
  }

  /** A part without the key: the same, folded, at every point. */
  private final class KeyFree(e: Expression) extends Substituted {
    lazy val folded: Expression = fold(e)
    lazy val folds: Steps = Steps.constant(points.size, foldsOf(folded))
    def at(point: Int): Expression = folded
  }

  /** A test the rules decide at every point: TRUE, FALSE or NULL. */
  private final class Decided(val folds: Steps) extends Substituted {
    def at(point: Int): Expression = literalOf(folds.at(point))
  }

  /** Any other part: substituted and folded point by point, as few parts are (a function of the key, an InSet). */
  private final class PointByPoint(e: Expression, mayFold: Boolean) extends Substituted {
    lazy val folds: Steps =
      if (!mayFold) Steps.constant(points.size, Unknown)
      else points.indices.foldLeft(new Steps.Builder(points.size)) { (out, i) =>
        out.upTo(i + 1, foldsOf(at(i)))
      }.result()
    def at(point: Int): Expression = substitute(e, key, points(point))
  }

  private final class Negated(child: Substituted) extends Substituted {
    lazy val folds: Steps = child.folds.map(Truth.not)
    def at(point: Int): Expression = folds.at(point) match {
      case Unknown => Not(child.at(point))
      case decided => literalOf(decided)
    }
  }

  /**
   * An AND (or OR) of parts: FALSE (TRUE) where one part is, else the parts that stay
   * expressions there. Those are found by a sweep over the parts' Unknown runs, since points are
   * asked for in key order; a point below the last one asked starts the sweep again.
   */
  private final class Chain(isAnd: Boolean, parts: IndexedSeq[Substituted]) extends Substituted {
    lazy val folds: Steps = Steps.combine(parts.map(_.folds), isAnd)

    def at(point: Int): Expression = folds.at(point) match {
      case Unknown =>
        val undecided = openAt(point).map(parts(_).at(point))
        KeyRangePlanner.balanced(undecided, if (isAnd) And else Or)
      case decided => literalOf(decided)
    }

    /** Each Unknown run of each part, as (start << 32 | part), in key order. */
    private lazy val openings: Array[Long] = {
      val all = mutable.ArrayBuilder.make[Long]
      parts.indices.foreach { i =>
        val folds = parts(i).folds
        (0 until folds.runs).foreach(run =>
          if (folds.valueOf(run) == Unknown) all += (folds.startOf(run).toLong << 32) | i
        )
      }
      val sorted = all.result()
      java.util.Arrays.sort(sorted)
      sorted
    }
    private var next = 0
    private var asked = -1
    private val open = mutable.BitSet.empty
    private lazy val openUntil = new Array[Int](parts.size)

    private def openAt(point: Int): IndexedSeq[Int] = {
      if (point < asked) { next = 0; open.clear() }
      asked = point
      while (next < openings.length && (openings(next) >>> 32).toInt <= point) {
        val part = (openings(next) & 0xffffffffL).toInt
        val folds = parts(part).folds
        openUntil(part) = folds.endOf(folds.runAt((openings(next) >>> 32).toInt))
        open += part
        next += 1
      }
      open.filterInPlace(openUntil(_) > point)
      open.toIndexedSeq
    }
  }

  private def substitutedOf(e: Expression): Substituted = e match {
    case And(_, _) | Or(_, _) =>
      val isAnd = e.isInstanceOf[And]
      val parts = operandsOf(e, isAnd).map(substitutedOf)
      if (parts.forall(_.isInstanceOf[KeyFree])) new KeyFree(e) else new Chain(isAnd, parts)
    case Not(a) => substitutedOf(a) match {
        case _: KeyFree => new KeyFree(e)
        case child => new Negated(child)
      }
    case _ if !mentionsKey(e) => new KeyFree(e)
    case c: BinaryComparison => (c.left, c.right) match {
        case (k, other) if isKey(k, key) && !mentionsKey(other) => comparedAtPoints(c, fold(other), flipped = false)
        case (other, k) if isKey(k, key) && !mentionsKey(other) => comparedAtPoints(c, fold(other), flipped = true)
        case _ => new PointByPoint(c, mayFold = mayBeLiteral(c.left) && mayBeLiteral(c.right))
      }
    case in @ In(k, list) if isKey(k, key) && list.nonEmpty && !list.exists(mentionsKey) =>
      val values = list.map(fold)
      if (!values.forall(_.isInstanceOf[Literal])) new PointByPoint(in, mayFold = false)
      else if (values.forall(v => v.dataType == key.dataType))
        membersAtPoints(values.map(_.asInstanceOf[Literal].value))
      else new PointByPoint(in, mayFold = true)
    case In(value, list) => new PointByPoint(e, mayFold = (value +: list).forall(mayBeLiteral))
    case InSet(value, _) => new PointByPoint(e, mayFold = mayBeLiteral(value))
    case a: Attribute => new PointByPoint(a, mayFold = true) // the key itself, a BOOLEAN
    case _ => new PointByPoint(e, mayFold = false) // no rule folds it: it stays, with the point in it
  }

  /** Whether a part may become a literal at some point, so that a test of it may fold. */
  private def mayBeLiteral(e: Expression): Boolean = e match {
    case k if isKey(k, key) => true
    case _ if !mentionsKey(e) => fold(e).isInstanceOf[Literal]
    case _: BinaryComparison | _: In | _: InSet | _: And | _: Or | _: Not => true
    case _ => false
  }

  /** `key op v` at every point, as Spark evaluates it between literals (by the type's ordering). */
  private def comparedAtPoints(c: BinaryComparison, other: Expression, flipped: Boolean): Substituted = other match {
    case Literal(v, t) if v != null && t == key.dataType && holdsForSign(c, flipped).isDefined =>
      val truth = holdsForSign(c, flipped).get
      val (lo, hi) = (lowerIndex(v), upperIndex(v))
      new Decided(
        new Steps.Builder(points.size).upTo(lo, truth(-1)).upTo(hi, truth(0)).upTo(points.size, truth(1)).result()
      )
    case _: Literal => new PointByPoint(c, mayFold = true) // NULL, or another type: as Spark evaluates it
    case _ => new PointByPoint(c, mayFold = false)
  }

  /** `key IN values` at every point: TRUE on the values, else FALSE, or NULL when one of them is. */
  private def membersAtPoints(values: Seq[Any]): Substituted = {
    val otherwise = if (values.contains(null)) Unknown else False
    val out = new Steps.Builder(points.size)
    pointsEqualTo(values.filter(_ != null)).foreach { case (lo, hi) => out.upTo(lo, otherwise).upTo(hi, True) }
    new Decided(out.upTo(points.size, otherwise).result())
  }
}
