// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import java.util.concurrent.{CountDownLatch, TimeUnit}
import java.util.concurrent.atomic.AtomicBoolean

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.Waits
import org.apache.spark.sql.hbase.metadata.HBaseTableName
import org.apache.spark.sql.hbase.connection.HBaseClusterConf

/** The one cache of table facts, alone: ages, what is kept, what is forgotten, and that no fetch waits on another. */
class FactsCacheSpec extends AnyFunSpec with Matchers {
  private val cluster = HBaseClusterConf(Map("hbase.zookeeper.quorum" -> s"facts-cache-spec-${System.nanoTime()}"))
  private def table(name: String) = HBaseTableName("default", name)

  describe("a fact") {
    it("is fetched once and answered from the cache while it is younger than the reader accepts") {
      val fact = FactsCache.Size(cluster, table("ages"))
      var fetches = 0
      def size(maxAgeMs: Long) = FactsCache.get(fact, maxAgeMs) { fetches += 1; Some(BigInt(fetches)) }
      size(60000) shouldBe Some(BigInt(1))
      size(60000) shouldBe Some(BigInt(1))
      Waits.clockPast(System.currentTimeMillis())
      size(1) shouldBe Some(BigInt(2))
      fetches shouldBe 2
    }

    it("that proves nothing yet is not kept") {
      val fact = FactsCache.AggregatorVersion(cluster, table("unproven"))
      FactsCache.get(fact, 60000, (_: Option[Int]).isDefined)(None) shouldBe None
      FactsCache.cached(fact, 60000) shouldBe None
      FactsCache.get(fact, 60000, (_: Option[Int]).isDefined)(Some(2)) shouldBe Some(2)
      FactsCache.cached(fact, 60000) shouldBe Some(Some(2))
    }

    it("about a table is forgotten with that table only") {
      val gone = table("gone")
      val kept = table("kept")
      FactsCache.put(FactsCache.Size(cluster, gone), Some(BigInt(1)))
      FactsCache.put(FactsCache.AggregatorVersion(cluster, gone), Some(2))
      FactsCache.put(FactsCache.Size(cluster, kept), Some(BigInt(3)))
      val otherCluster = HBaseClusterConf(Map("hbase.zookeeper.quorum" -> "elsewhere"))
      FactsCache.put(FactsCache.Size(otherCluster, gone), Some(BigInt(4)))
      FactsCache.forgetTable(cluster, gone)
      FactsCache.cached(FactsCache.Size(cluster, gone), Long.MaxValue) shouldBe None
      FactsCache.cached(FactsCache.AggregatorVersion(cluster, gone), Long.MaxValue) shouldBe None
      FactsCache.cached(FactsCache.Size(cluster, kept), Long.MaxValue) shouldBe Some(Some(BigInt(3)))
      FactsCache.cached(FactsCache.Size(otherCluster, gone), Long.MaxValue) shouldBe Some(Some(BigInt(4)))
    }

    it("is fetched outside any lock: a fetch never waits for another fetch of the same or any fact") {
      val fact = FactsCache.Regions(cluster, table("unlocked"))
      val firstFetching, secondFetched = new CountDownLatch(1)
      val firstSawSecond = new AtomicBoolean()
      val first = new Thread(() => {
        FactsCache.get(fact, 0) {
          firstFetching.countDown()
          // Waits inside its fetch until the other thread's fetch of the same fact has run.
          firstSawSecond.set(secondFetched.await(10, TimeUnit.SECONDS))
          Nil
        }
      })
      first.start()
      firstFetching.await(10, TimeUnit.SECONDS) shouldBe true
      FactsCache.get(fact, 0) { secondFetched.countDown(); Nil } shouldBe Nil
      first.join(10000)
      firstSawSecond.get shouldBe true
    }
  }
}
