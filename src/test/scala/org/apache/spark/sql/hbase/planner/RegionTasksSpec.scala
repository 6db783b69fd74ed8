// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

/** How the regions of a read are shared out among Spark tasks: a pure rule of sizes and settings. */
class RegionTasksSpec extends AnyFunSpec with Matchers {
  private val mb = BigInt(1024L * 1024)
  private val max = 128L * 1024 * 1024

  describe("the tasks of a read") {
    it("share out consecutive regions evenly, at most the most bytes a task reads each") {
      RegionTasks.plan(16, Some(6 * mb), max, minTasks = 1).get shouldBe RegionTasks(Seq(16), 96 * mb)
      val tasks = RegionTasks.plan(16, Some(12 * mb), max, minTasks = 1).get
      tasks.regionsPerTask shouldBe Seq(8, 8)
      tasks.bytesPerTask shouldBe 96 * mb
      tasks.group(1 to 16) shouldBe Seq(1 to 8, 9 to 16)
      RegionTasks.plan(10, Some(30 * mb), max, minTasks = 1).get.regionsPerTask shouldBe Seq(4, 3, 3)
    }

    it("are at least as many as Spark's default parallelism, unless each task would then read under 8 MB") {
      RegionTasks.plan(16, Some(6 * mb), max, minTasks = 4).get.regionsPerTask shouldBe Seq(4, 4, 4, 4)
      RegionTasks.plan(16, Some(mb), max, minTasks = 8).get.regionsPerTask shouldBe Seq(8, 8)
      RegionTasks.plan(4, Some(mb), max, minTasks = 200).get.regionsPerTask shouldBe Seq(4)
    }

    it("are a task per region when regions are large, the size unknown, one region read, or the setting 0") {
      RegionTasks.plan(16, Some(200 * mb), max, minTasks = 1) shouldBe None
      RegionTasks.plan(16, Some(100 * mb), max, minTasks = 1) shouldBe None
      RegionTasks.plan(16, None, max, minTasks = 1) shouldBe None
      RegionTasks.plan(1, Some(mb), max, minTasks = 1) shouldBe None
      RegionTasks.plan(16, Some(mb), 0, minTasks = 1) shouldBe None
    }

    it("hold regions of no estimated size, and settings far above any table") {
      RegionTasks.plan(5, Some(BigInt(0)), Long.MaxValue, minTasks = 1).get.regionsPerTask shouldBe Seq(5)
      RegionTasks.plan(5, Some(mb), Long.MaxValue, minTasks = 1).get.regionsPerTask shouldBe Seq(5)
    }

    it("refuse a grouping of other regions than the plan's") {
      an[IllegalArgumentException] should be thrownBy RegionTasks(Seq(2, 2), mb).group(1 to 5)
    }
  }
}
