// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference, Expression, Literal}
import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn}
import org.apache.spark.sql.types.{IntegerType, LongType, TimestampType}

/** Which families a scan reads only from a time on, decided from the WHERE clause alone. */
class WrittenSinceSpec extends AnyFunSpec with Matchers {
  private val v = HBaseColumn("v", IntegerType, nullable = true, Some(CellRef("f", "v")))
  private val w = HBaseColumn("w", IntegerType, nullable = true, Some(CellRef("f", "w")))
  private val g = HBaseColumn("g", IntegerType, nullable = true, Some(CellRef("h", "g")))
  private val vAt = HBaseColumn("v_at", TimestampType, nullable = true, None, writeTimeOf = Some(CellRef("f", "v")))
  private val gMs = HBaseColumn("g_ms", LongType, nullable = true, None, writeTimeOf = Some(CellRef("h", "g")))
  private val attributes = Seq(v, w, g, vAt, gMs).map(c => c -> AttributeReference(c.name, c.dataType)()).toMap
  private val Seq(va, wa, ga, vAtA, gMsA) = Seq(v, w, g, vAt, gMs).map(attributes)

  private def columnOf(a: Attribute) = attributes.collectFirst { case (c, attr) if attr.exprId == a.exprId => c }
  private def since(where: Expression, reads: HBaseColumn*) = WrittenSince.plan(where, reads, columnOf)
  private def micros(millis: Long) = Literal(millis * 1000, TimestampType)

  describe("a lower bound on a write time") {
    it("reads its family from that time, the latest of several bounds, in either operand order") {
      since(vAtA >= micros(5000), vAt) shouldBe Map("f" -> 5000)
      since(vAtA > micros(5000) && micros(7000) <= vAtA, vAt) shouldBe Map("f" -> 7000)
      since(gMsA === 42L && Literal(40L) < gMsA, gMs, vAt) shouldBe Map("h" -> 42)
      since(vAtA >= micros(5000) && gMsA >= 10L, vAt, gMs) shouldBe Map("f" -> 5000, "h" -> 10)
    }

    it("rounds a timestamp down to HBase's milliseconds") {
      since(vAtA >= Literal(5000999L, TimestampType), vAt) shouldBe Map("f" -> 5000)
      since(vAtA >= Literal(-1L, TimestampType), vAt) shouldBe Map("f" -> -1)
    }

    it("leaves the family whole when the scan reads another of its cells") {
      since(vAtA >= micros(5000), vAt, w) shouldBe Map.empty
      since(vAtA >= micros(5000), vAt, v, g) shouldBe Map("f" -> 5000)
    }

    it("ignores upper bounds, disjunctions, negations, NULL and value columns") {
      since(vAtA < micros(5000), vAt) shouldBe Map.empty
      since(vAtA <= micros(5000), vAt) shouldBe Map.empty
      since(vAtA >= micros(5000) || ga > 1, vAt, g) shouldBe Map.empty
      since(!(vAtA < micros(5000)), vAt) shouldBe Map.empty
      since(vAtA >= Literal(null, TimestampType), vAt) shouldBe Map.empty
      since(va >= 3, v) shouldBe Map.empty
    }
  }
}
