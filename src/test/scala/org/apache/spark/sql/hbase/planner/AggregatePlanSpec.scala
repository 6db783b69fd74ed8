// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.catalyst.dsl.expressions._
import org.apache.spark.sql.catalyst.expressions.{
  Add, Attribute, EvalMode, Expression, Literal, Multiply, NumericEvalContext, Subtract, UnaryMinus
}
import org.apache.spark.sql.catalyst.expressions.aggregate.{
  AggregateExpression, AggregateFunction, Average, Count, Final, Max, Partial, Sum
}
import org.apache.spark.sql.hbase.server.{AggregateSpec, ServerJar}
import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn, HBaseTableDef, HBaseTableName, TableFormat}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.types.{Decimal, DecimalType, DoubleType, FloatType, IntegerType, StringType}
import org.apache.spark.sql.hbase.logical.HBaseRelation

/** What of a partial aggregation the region servers compute, decided without HBase or a session. */
class AggregatePlanSpec extends AnyFunSpec with Matchers {
  private val table = HBaseTableDef(
    "t",
    HBaseTableName("default", "t"),
    Seq(
      HBaseColumn("k", IntegerType, nullable = false, None),
      HBaseColumn("g", StringType, nullable = true, Some(CellRef("f", "g"))),
      HBaseColumn("v", IntegerType, nullable = true, Some(CellRef("f", "v"))),
      HBaseColumn("m", DecimalType(12, 2), nullable = true, Some(CellRef("f", "m")))
    ),
    Seq("k"),
    TableFormat.Binary
  )
  private val relation = HBaseRelation(table, HBaseClusterConf(Map("hbase.client.scanner.timeout.period" -> "2000")))
  private val Seq(k, g, v, m) = relation.output
  private val wholeTable = Seq(RegionInfo(Array.emptyByteArray, Array.emptyByteArray, Some("rs1")))

  private val threeRegions = Seq(Array.emptyByteArray, Array(0x80.toByte), Array(0x90.toByte), Array.emptyByteArray)
    .sliding(2).map { case Seq(start, end) => RegionInfo(start, end, Some("rs1")) }.toSeq

  private class Facts(
      coprocessor: Boolean,
      override val regions: Seq[RegionInfo] = wholeTable,
      filterVersion: Int = ServerJar.WIRE_VERSION,
      aggregatorVersion: Int = ServerJar.WIRE_VERSION,
      withoutJar: Set[String] = Set.empty
  ) extends TableFacts {
    var asked = false
    var askedThrough: Seq[RegionInfo] = Nil
    override def serverFilter(read: Seq[RegionInfo]): Map[String, Option[Int]] =
      read.map(r => r.serverName -> Some(filterVersion).filterNot(_ => withoutJar(r.host.get))).toMap
    override def aggregator(through: Seq[RegionInfo]): Option[Int] = {
      asked = true
      askedThrough = through
      Some(aggregatorVersion).filter(_ => coprocessor)
    }
  }

  private def partial(f: AggregateFunction) = AggregateExpression(f, Partial, isDistinct = false)

  private val settings = ScanSettings(
    pushdown = true,
    customFilter = true,
    maxKeyRanges = 1000,
    fetchSize = 1000,
    driverReadMaxKeyRanges = 0
  )

  private def plan(
      where: Option[Expression],
      groups: Seq[Attribute],
      aggregates: Seq[AggregateExpression],
      facts: Facts = new Facts(coprocessor = true),
      singleTaskMaxRegions: Int = 64,
      maxGroupBytes: Long = 0
  ): Option[AggregateScanPlan] = {
    // As HBaseStrategy offers it: shaped, not yet finished.
    val scan = HBaseScanPlanner.shape(relation, relation.output, relation.output, where, settings, facts)
    AggregatePushdown.plan(
      scan,
      groups,
      aggregates,
      a => Some(relation.columnOf(a)),
      facts,
      50,
      singleTaskMaxRegions,
      maxGroupBytes
    )
  }

  describe("a partial aggregation") {
    it("asks for the coprocessor through the regions on servers with the server jar, and reads the others raw") {
      val spread = threeRegions.zip(Seq("rs1", "rs2", "rs3")).map { case (r, host) => r.copy(host = Some(host)) }
      val facts = new Facts(coprocessor = true, regions = spread, withoutJar = Set("rs1"))
      val p = plan(None, Seq(g), Seq(partial(Count(Seq(Literal(1))))), facts).get
      facts.askedThrough.map(_.host.get) shouldBe Seq("rs2", "rs3")
      p.scan.regionsWithoutServerJar shouldBe 1
      p.describe should include("1 region read without the server jar")
    }

    it("runs in the region servers as server aggregates, each computed once, and Spark's buffer slots made from them") {
      val p = plan(
        Some(v > 3),
        Seq(g),
        Seq(
          partial(Count(Seq(Literal(1)))),
          partial(Average(v)),
          partial(Count(Seq(v))),
          partial(Max(g)),
          partial(Sum(m))
        )
      ).get
      val Seq(vColumn, mColumn) = Seq(table.columns(2), table.columns(3)).map(ServerValue.ColumnValue)
      p.aggregates shouldBe Seq(
        ServerAggregate.CountRows,
        ServerAggregate.SumOf(ServerValue.Converted(vColumn, DoubleType, failOnOverflow = false)),
        ServerAggregate.CountOf(vColumn),
        ServerAggregate.MaxOf(table.columns(1)),
        ServerAggregate.SumOf(mColumn)
      )
      p.slots shouldBe Seq(
        BufferSlot.CountSlot(0),
        BufferSlot.DoubleSumSlot(1, zeroWithoutInput = true),
        BufferSlot.CountSlot(2),
        BufferSlot.CountSlot(2),
        BufferSlot.ExtremeSlot(3, StringType),
        BufferSlot.DecimalSumSlot(4, DecimalType(22, 2)),
        BufferSlot.IsEmptySlot(4)
      )
      p.groupBy shouldBe Seq(table.columns(1))
      p.maxGroups shouldBe 50
      withClue("a quarter of the 2 s scanner timeout: ")(p.sliceMillis shouldBe 500)
      p.describe should endWith(
        "partial aggregate in region servers: count(1), sum(CAST(v AS DOUBLE)), count(v), max(g), sum(m) group by g"
      )
    }

    it(
      "stays in Spark when Spark must finish the WHERE clause, a region is read by Gets, or an aggregate has no server form"
    ) {
      plan(Some(k + v > 3), Nil, Seq(partial(Count(Seq(Literal(1)))))) shouldBe None
      plan(Some(k === 7), Nil, Seq(partial(Count(Seq(Literal(1)))))) shouldBe None
      plan(None, Nil, Seq(partial(Sum(k % 2)))) shouldBe None
      plan(None, Nil, Seq(AggregateExpression(Count(Seq(Literal(1))), Final, isDistinct = false))) shouldBe None
      plan(None, Nil, Seq(partial(Count(Seq(Literal(1)))).copy(filter = Some(v > 1)))) shouldBe None
    }

    it(
      "asks whether the region servers run the coprocessor only when all else allows it, and stays in Spark without it"
    ) {
      val unpushable = new Facts(coprocessor = true)
      plan(None, Nil, Seq(partial(Sum(k % 2))), unpushable) shouldBe None
      unpushable.asked shouldBe false
      val without = new Facts(coprocessor = false)
      plan(None, Nil, Seq(partial(Count(Seq(Literal(1))))), without) shouldBe None
      without.asked shouldBe true
    }

    it(
      "speaks the newest wire version the filter and the coprocessor both read, and stays in Spark below the one that checks row keys"
    ) {
      val count = Seq(partial(Count(Seq(Literal(1)))))
      val newest = plan(None, Seq(g), count, maxGroupBytes = 4096).get
      (newest.wireVersion, newest.scan.request.wireVersion, newest.maxGroupBytes) shouldBe
        ((ServerJar.WIRE_VERSION, ServerJar.WIRE_VERSION, 4096L))
      // Region servers that cannot check keys would fold in rows whose keys are not the table's.
      for (older <- ServerJar.OLDEST_WIRE_VERSION until ServerJar.WIRE_VERSION if !AggregateSpec.checksKeys(older)) {
        withClue(s"version $older: ") {
          plan(None, Seq(g), count, new Facts(true, aggregatorVersion = older), maxGroupBytes = 4096) shouldBe None
          plan(None, Seq(g), count, new Facts(true, filterVersion = older), maxGroupBytes = 4096) shouldBe None
        }
      }
    }

    it("is sent as bytes written once, at planning, in the plan's wire version: each region's filter and spec") {
      val sum = Seq(partial(Sum(v)))
      val planned = plan(Some(v > 5), Seq(g), sum, new Facts(true, threeRegions), singleTaskMaxRegions = 1).get
      planned.regionRequests.map(_._1) shouldBe planned.scan.regions
      planned.regionRequests.foreach { case (region, sent) =>
        sent.filter.bytes shouldBe RegionRequests.aggregateFilter(planned, region).toByteArray
        sent.spec.bytes shouldBe RegionRequests.aggregateSpec(planned, region).toByteArray
        // What a task sends is the planned bytes themselves, not the filter written again.
        sent.filterOf.toByteArray should be theSameInstanceAs sent.filter.bytes
        java.nio.ByteBuffer.wrap(sent.spec.bytes).getInt shouldBe planned.wireVersion // the version leads
      }
      // A scan has its own filters written too, in its wire version.
      val facts = new Facts(true, threeRegions, filterVersion = 1)
      val scan = HBaseScanPlanner.plan(relation, relation.output, relation.output, Some(v > 5), settings, facts)
      scan.regions.flatMap(_.server).map(_.wire.isDefined) shouldBe Seq(true, true, true)
      scan.regions.flatMap(_.server).map(s => java.nio.ByteBuffer.wrap(s.wire.get.bytes).getInt) shouldBe Seq(1, 1, 1)
    }

    it("computes arithmetic on columns in the region servers, with Spark's result types and its ANSI mode") {
      val price = Multiply(
        m,
        Subtract(Literal(Decimal(1), DecimalType(1, 0)), m, NumericEvalContext(EvalMode.ANSI)),
        NumericEvalContext(EvalMode.ANSI)
      )
      val p = plan(
        None,
        Nil,
        Seq(partial(Sum(price)), partial(Sum(Add(v, Literal(1), NumericEvalContext(EvalMode.LEGACY)))))
      ).get
      p.aggregates.head match {
        case ServerAggregate.SumOf(ServerValue.Arithmetic(
              ServerValue.Times,
              _,
              ServerValue.Arithmetic(ServerValue.Minus, one, _, minusType, true),
              timesType,
              true
            )) =>
          one shouldBe ServerValue.Constant(new java.math.BigDecimal(1), DecimalType(1, 0))
          (minusType, timesType) shouldBe ((DecimalType(13, 2), DecimalType(26, 4)))
        case other => fail(s"not the product: $other")
      }
      p.slots.take(2) shouldBe Seq(BufferSlot.DecimalSumSlot(0, DecimalType(36, 4)), BufferSlot.IsEmptySlot(0))
      p.describe should include("sum((m * (1 - m))), sum((v + 1))")
    }

    it(
      "leaves to Spark what a region server cannot compute as Spark does: other functions, FLOAT arithmetic, try_ modes"
    ) {
      plan(None, Nil, Seq(partial(Sum(k % 2)))) shouldBe None
      plan(None, Nil, Seq(partial(Sum(Add(v, v, NumericEvalContext(EvalMode.TRY)))))) shouldBe None
      withClue("Spark negates a DECIMAL of 38 digits to 34: ") {
        plan(None, Nil, Seq(partial(Sum(UnaryMinus(m.cast(DecimalType(38, 2))))))) shouldBe None
      }
      plan(
        None,
        Nil,
        Seq(partial(Sum(Add(v.cast(FloatType), v.cast(FloatType), NumericEvalContext(EvalMode.LEGACY)))))
      ) shouldBe None
    }

    it(
      "reads the regions of an aggregate without groups in one task, up to a number of regions; with groups, one each"
    ) {
      def countOverThreeRegions(groups: Seq[Attribute], singleTaskMaxRegions: Int) =
        plan(
          None,
          groups,
          Seq(partial(Count(Seq(Literal(1))))),
          new Facts(true, threeRegions),
          singleTaskMaxRegions
        ).get
      val together = countOverThreeRegions(Nil, 3)
      together.singleTask shouldBe true
      together.scan.regions.size shouldBe 3
      together.describe should
        endWith("partial aggregate in region servers: count(1), regions read together in one task")
      countOverThreeRegions(Nil, 2).singleTask shouldBe false
      countOverThreeRegions(Nil, 0).describe should endWith("count(1)")
      withClue("a grouped aggregate may have many groups, which Spark's final aggregation merges in parallel: ") {
        countOverThreeRegions(Seq(g), 64).singleTask shouldBe false
      }
    }

    it("leaves a 38-digit DECIMAL average to Spark under ANSI, whose partial sum may fail after two rows") {
      val wide = Multiply(m, m, NumericEvalContext(EvalMode.ANSI)).cast(DecimalType(38, 2))
      plan(None, Nil, Seq(partial(Average(wide, EvalMode.ANSI)))) shouldBe None
      plan(None, Nil, Seq(partial(Average(wide, EvalMode.LEGACY)))) should not be empty
      plan(None, Nil, Seq(partial(Average(m, EvalMode.ANSI)))) should not be empty
    }
  }
}
