// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.planner.RegionInfo

/** Which regions a plan's probe for the aggregation coprocessor asks, alone. */
class AggregatorSupportSpec extends AnyFunSpec with Matchers {
  // Case classes holding arrays: compared by identity, so each test compares the same instances.
  private def regions(n: Int): Seq[RegionInfo] = (0 until n).map(i =>
    RegionInfo(Array(i.toByte), Array((i + 1).toByte), Some(s"host$i"))
  )

  describe("the regions probed for the aggregation coprocessor") {
    it("are every region the plan reads, up to the bound") {
      for (n <- Seq(1, 2, AggregatorSupport.MaxProbedRegions)) {
        val all = regions(n)
        AggregatorSupport.probed(all) shouldBe all
      }
    }

    it("are, above the bound, that many spread over the plan's regions in key order, the first and last among them") {
      val all = regions(100)
      val probed = AggregatorSupport.probed(all)
      probed should have size AggregatorSupport.MaxProbedRegions.toLong
      probed.distinct shouldBe probed
      probed.head shouldBe all.head
      probed.last shouldBe all.last
      probed.map(all.indexOf) shouldBe sorted
      // Evenly spaced: no gap between two probed regions is much wider than the average.
      probed.map(all.indexOf).sliding(2).map { case Seq(a, b) => b - a }.max should be <= 7
    }
  }
}
