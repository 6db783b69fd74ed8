// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.bench

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.hbase.planner.{KeyRangePlanner, RegionInfo, RegionsRead}
import org.apache.spark.sql.types.{DoubleType, IntegerType, LongType}

/**
 * Planning time of a 20-term predicate over 1,000 synthetic regions: key ranges, region pruning
 * and per-region residuals, with no HBase. Run by benchmarks/run; prints one JSON line.
 */
object PlanningBenchmark {
  def main(args: Array[String]): Unit = {
    val orderkey = AttributeReference("l_orderkey", LongType, nullable = false)()
    val linenumber = AttributeReference("l_linenumber", IntegerType, nullable = false)()
    val quantity = AttributeReference("l_quantity", DoubleType)()
    val keys = Seq(orderkey, linenumber)
    val codec = new BinaryKeyCodec(keys.map(_.dataType))

    // 9 ranges on the leading key (18 comparisons), one on the second key and one on a value: 20 terms.
    val ranges = (0 until 9).map(i => (orderkey >= (i * 60000L + 1000L)) && (orderkey < (i * 60000L + 7000L)))
    val predicate: Expression = ranges.reduce(_ || _) && (linenumber =!= 3) && (quantity > 5.0)
    val terms = predicate.collect { case c: org.apache.spark.sql.catalyst.expressions.BinaryComparison => c }.size

    val bounds = (1 until 1000).map(i => codec.encodePrefix(Seq(i * 600L)))
    val regions = (Array.emptyByteArray +: bounds).zip(bounds :+ Array.emptyByteArray).map { case (s, e) =>
      RegionInfo(s, e, None)
    }

    def planOnce(): RegionsRead = {
      val keyRanges = KeyRangePlanner.plan(keys, keys.size, _ => true, predicate, maxRanges = 10000)
      RegionsRead(regions, keyRanges, keys, codec, Some(predicate), None)
    }
    (1 to 30).foreach(_ => planOnce()) // warm up the JIT
    val timesMs = (1 to 50).map { _ =>
      val start = System.nanoTime()
      planOnce()
      (System.nanoTime() - start) / 1e6
    }.sorted
    val plan = planOnce()
    println(
      f"""{"benchmark": "planning", "terms": $terms, "regions": ${regions.size}, "regionsKept": ${plan.regions.size}, """ +
        f""""keyRanges": ${plan.rowRanges}, "medianMs": ${timesMs(timesMs.size /
            2)}%.3f, "maxMs": ${timesMs.last}%.3f}"""
    )
  }
}
