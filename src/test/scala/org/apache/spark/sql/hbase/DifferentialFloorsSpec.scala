// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

/**
 * The floors of the differential specs' share-of-cases checks hold at every case count the long
 * run accepts: below the suite's own count, chance alone fails one in fewer than a hundred runs,
 * even when the true share is only the floor's share.
 */
class DifferentialFloorsSpec extends AnyFunSpec with Matchers {
  // Every share the differential specs check, and their suites' case counts.
  private val shares = Seq(1.0 / 50, 1.0 / 20, 10.0 / 160, 1.0 / 10, 1.0 / 5, 40.0 / 160, 3.0 / 10, 0.4, 0.5)

  /** P(X <= k) for X ~ Binomial(n, p), summed in logs so that large n stays exact enough. */
  private def atMost(k: Int, n: Int, p: Double): Double =
    if (k < 0) 0.0
    else {
      var logTerm = n * math.log(1 - p) // P(X = 0)
      var sum = math.exp(logTerm)
      for (i <- 1 to math.min(k, n)) {
        logTerm += math.log((n - i + 1).toDouble / i) + math.log(p / (1 - p))
        sum += math.exp(logTerm)
      }
      math.min(sum, 1.0)
    }

  describe("a share-of-cases floor below the suite's own case count") {
    it("fails by chance alone in fewer than 1 % of runs, at every case count from 1 up") {
      val inTheSuite = 2000
      for (share <- shares; cases <- 1 until inTheSuite) {
        val floor = DifferentialCases.floorOf(cases, share, inTheSuite)
        // `count > floor` fails when count <= floor.
        val failing = atMost(math.floor(floor).toInt, cases, share)
        withClue(s"share $share, $cases cases, floor $floor: ")(failing should be < 0.01)
      }
    }

    it("demands nothing of a sample too small to judge, rather than one case where chance may give none") {
      DifferentialCases.floorOf(25, 10.0 / 160, 160) should be < 0.0
      DifferentialCases.floorOf(160, 10.0 / 160, 160) shouldBe 10.0
    }
  }
}
