// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import scala.collection.mutable

/** The outcome of a predicate over every row of a piece of the key space, in three-valued logic. */
private[planner] sealed trait Truth

private[planner] object Truth {
  case object True extends Truth
  case object False extends Truth // false, never NULL: safe to negate
  case object Unknown extends Truth

  def not(t: Truth): Truth = t match {
    case True => False
    case False => True
    case Unknown => Unknown
  }
}

/**
 * A truth for each of `size` consecutive positions (the pieces or the points of a key column),
 * held as runs: `values(j)` from `starts(j)` up to the next start, no two neighbours alike. A
 * term of a long OR is a few runs over thousands of pieces, so terms combine at the cost of
 * their runs rather than of pieces times terms.
 */
private[planner] final class Steps private (val size: Int, starts: Array[Int], values: Array[Truth]) {
  import Truth._

  def runs: Int = starts.length
  def startOf(run: Int): Int = starts(run)
  def endOf(run: Int): Int = if (run + 1 < starts.length) starts(run + 1) else size
  def valueOf(run: Int): Truth = values(run)

  /** The run holding `position`: a binary search. */
  def runAt(position: Int): Int = {
    var (lo, hi) = (0, starts.length - 1)
    while (lo < hi) {
      val mid = (lo + hi + 1) >>> 1
      if (starts(mid) <= position) lo = mid else hi = mid - 1
    }
    lo
  }

  def at(position: Int): Truth = values(runAt(position))

  /** Whether every position of [from, until) is True. */
  def allTrue(from: Int, until: Int): Boolean = {
    val run = runAt(from)
    values(run) == True && endOf(run) >= until
  }

  def map(f: Truth => Truth): Steps = {
    val out = new Steps.Builder(size)
    (0 until runs).foreach(r => out.upTo(endOf(r), f(values(r))))
    out.result()
  }
}

private[planner] object Steps {
  import Truth._

  def constant(size: Int, value: Truth): Steps = new Steps(size, Array(0), Array(value))

  /** Builds steps from left to right: each call sets the positions from the last one given up to `until`. */
  final class Builder(size: Int) {
    private val starts = mutable.ArrayBuilder.make[Int]
    private val values = mutable.ArrayBuilder.make[Truth]
    private var end = 0
    private var last: Truth = _

    def upTo(until: Int, value: Truth): this.type = {
      if (until > end) {
        if (last != value) { starts += end; values += value; last = value }
        end = until
      }
      this
    }

    def result(): Steps = {
      require(end == size && size > 0, s"steps cover $end of $size positions")
      new Steps(size, starts.result(), values.result())
    }
  }

  /**
   * The AND (or OR) of many steps over the same positions, in three-valued logic: one sweep over
   * every run's start, sorted, counting how many parts are False and Unknown there.
   */
  def combine(parts: IndexedSeq[Steps], isAnd: Boolean): Steps = parts match {
    case Seq(one) => one
    case _ =>
      val size = parts.head.size
      // A change of one part: at `position`, part `part` enters run `run`; sorted by position.
      val changes = mutable.ArrayBuilder.make[Long]
      val counts = new Array[Int](3) // parts True, False and Unknown at the sweep's position
      def slot(t: Truth): Int = t match {
        case True => 0
        case False => 1
        case Unknown => 2
      }
      parts.indices.foreach { i =>
        val p = parts(i)
        counts(slot(p.valueOf(0))) += 1
        (1 until p.runs).foreach(run => changes += (p.startOf(run).toLong << 32) | i.toLong)
      }
      val sorted = changes.result()
      java.util.Arrays.sort(sorted)
      val runOfPart = new Array[Int](parts.size)
      def outcome: Truth =
        if (isAnd) { if (counts(1) > 0) False else if (counts(2) > 0) Unknown else True }
        else if (counts(0) > 0) True
        else if (counts(2) > 0) Unknown
        else False
      val out = new Builder(size)
      var next = 0
      while (next < sorted.length) {
        val at = (sorted(next) >>> 32).toInt
        out.upTo(at, outcome)
        while (next < sorted.length && (sorted(next) >>> 32).toInt == at) {
          val part = (sorted(next) & 0xffffffffL).toInt
          val p = parts(part)
          counts(slot(p.valueOf(runOfPart(part)))) -= 1
          runOfPart(part) += 1
          counts(slot(p.valueOf(runOfPart(part)))) += 1
          next += 1
        }
      }
      out.upTo(size, outcome).result()
  }
}
