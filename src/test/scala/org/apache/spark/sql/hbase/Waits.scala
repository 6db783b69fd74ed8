// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.scalatest.exceptions.TestFailedException

/**
 * Waiting on a condition, with a deadline and a message that says what never happened: the one
 * way the specs wait, instead of sleeping for a time that a loaded machine may not honour.
 */
object Waits {

  /** Looks at `condition` every `everyMs` until it holds; fails naming `what` after `seconds`. */
  def until(what: String, seconds: Double = 60, everyMs: Long = 20)(condition: => Boolean): Unit = {
    val deadline = System.nanoTime() + (seconds * 1e9).toLong
    while (!condition) {
      if (System.nanoTime() > deadline) throw new TestFailedException(s"$what: never happened within $seconds s", 0)
      pause(everyMs)
    }
  }

  /** Runs `check` until it passes, failing as it last failed after `seconds`. */
  def untilPasses[T](seconds: Double, everyMs: Long = 50)(check: => T): T = {
    val deadline = System.nanoTime() + (seconds * 1e9).toLong
    def attempt(): T =
      try check
      catch {
        case e: TestFailedException if System.nanoTime() < deadline =>
          pause(everyMs)
          attempt()
      }
    attempt()
  }

  /**
   * Waits until the clock reads later than `ms`, so that what is written next gets a later
   * timestamp than anything written at `ms` (HBase's cell times are in milliseconds).
   */
  def clockPast(ms: Long): Unit = until(s"the clock passing $ms ms", seconds = 5, everyMs = 1) {
    System.currentTimeMillis() > ms
  }

  /** Now, once the clock has moved past everything written before this call. */
  def afterNow(): Long = { clockPast(System.currentTimeMillis()); System.currentTimeMillis() }

  private def pause(ms: Long): Unit = Thread.sleep(ms)
}
