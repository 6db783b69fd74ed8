// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import java.io.IOException

import scala.util.Random

import org.apache.hadoop.hbase.KeyValue
import org.apache.hadoop.hbase.util.Bytes
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.IntegerType

/** The region server's aggregator and its wire formats, without HBase. */
class RowAggregatorSpec extends AnyFunSpec with Matchers {
  private val codec = new BinaryKeyCodec(Seq(IntegerType))
  private val f = Bytes.toBytes("f")
  private val g = Bytes.toBytes("g")
  private val v = Bytes.toBytes("v")

  /** Group by cell f:g (INT), count rows, sum and max of f:v (INT), over rows with v > 0. */
  private val spec = new AggregateSpec(
    codec.sliceLayout,
    Array(Operand.cell(f, g, CellType.INT, 0, 0), Operand.cell(f, v, CellType.INT, 0, 0), Operand.key(0)),
    RowPredicate.compare(">", 1, BinaryKeyCodec.comparable(IntegerType, 0)),
    Array(0),
    Array(
      AggregateFunction.countRows(),
      AggregateFunction.of(AggregateFunction.SUM, ValueExpression.operand(1, ValueExpression.LONG, 0)),
      AggregateFunction.of(AggregateFunction.MAX, ValueExpression.operand(2, ValueExpression.RAW, 0))
    ),
    100,
    50
  )

  private def row(k: Int, group: Int, value: Option[Int]): Seq[KeyValue] =
    Seq(new KeyValue(codec.encode(Seq(k)), f, g, Bytes.toBytes(group))) ++
      value.map(x => new KeyValue(codec.encode(Seq(k)), f, v, Bytes.toBytes(x)))

  /** Each group's key and states, readable. */
  private def groups(batch: AggregateBatch): Map[Int, Seq[Any]] = {
    import scala.jdk.CollectionConverters._
    batch.keys.asScala.zip(batch.states.asScala).map { case (key, states) =>
      codec.decode(key(0))(0).asInstanceOf[Int] -> states.toSeq.map {
        case Array(_, bytes: Array[Byte]) => codec.decode(bytes)(0)
        case Array(_, value) => value
      }
    }.toMap
  }

  describe("a row aggregator") {
    it("folds each row once it is complete, by group, with the predicate applied, and keys its batch by the last row") {
      val aggregator = new RowAggregator(spec)
      (row(1, 7, Some(5)) ++ row(2, 7, Some(-3)) ++ row(3, 8, Some(4)) ++ row(4, 7, None) ++
        row(5, 7, Some(6))).foreach(aggregator.add)
      aggregator.lastFoldedRow().toSeq shouldBe codec.encode(Seq(4)).toSeq // row 5 may have more cells
      aggregator.endOfRows()
      val cell = aggregator.takeBatchCell()
      cell.getRowArray.slice(cell.getRowOffset, cell.getRowOffset + cell.getRowLength).toSeq shouldBe
        codec.encode(Seq(5)).toSeq
      val batch = AggregateBatch.read(spec, org.apache.hadoop.hbase.client.Result.create(Array(cell)))
      batch.rowsScanned shouldBe 5
      groups(batch) shouldBe Map(7 -> Seq(2L, 11L, 5), 8 -> Seq(1L, 4L, 3))
      aggregator.hasRows shouldBe false
    }

    it("says when it holds as many groups as the spec allows") {
      val capped = AggregateSpec.parseFrom(spec.toByteArray)
      val aggregator = new RowAggregator(new AggregateSpec(
        capped.layout,
        capped.operands,
        capped.predicate,
        capped.groupBy,
        capped.aggregates,
        2,
        50
      ))
      (row(1, 1, Some(1)) ++ row(2, 2, Some(1))).foreach(aggregator.add)
      aggregator.full shouldBe false
      row(3, 3, Some(1)).foreach(aggregator.add) // the second group is folded once row 3 starts
      aggregator.full shouldBe true
    }
  }

  describe("a row aggregator over a global index's rows") {
    val c = Bytes.toBytes("c")
    val index = new IndexSpec("t_by_c", Array(Operand.cell(f, c, CellType.INT, 0, 0)), Array(f, f), Array(g, v))

    /** `spec` over the index's rows, holding at most `maxGroups` groups and keys, in wire version `version`. */
    def overIndexRows(maxGroups: Int = 100, version: Int = ServerJar.WIRE_VERSION) = new AggregateSpec(
      spec.layout,
      spec.operands,
      spec.predicate,
      spec.groupBy,
      spec.aggregates,
      maxGroups,
      50,
      0,
      codec.keyCheck.get,
      false,
      index,
      version
    )
    val overIndex = overIndexRows()

    /** The index row of data row `k` whose c is `indexed`: its status (None: no status cell), then its covered cells. */
    def indexRow(k: Int, indexed: Int, status: Option[Array[Byte]], group: Int, value: Int): Seq[KeyValue] =
      indexRowKeyed(
        index.rowKey(Array(BinaryKeyCodec.comparable(IntegerType, indexed)), codec.encode(Seq(k))),
        status,
        group,
        value
      )

    def indexRowKeyed(key: Array[Byte], status: Option[Array[Byte]], group: Int, value: Int): Seq[KeyValue] =
      status.map(s => new KeyValue(key, IndexSpec.STATUS_FAMILY, IndexSpec.STATUS, s)).toSeq ++
        Seq(new KeyValue(key, f, g, Bytes.toBytes(group)), new KeyValue(key, f, v, Bytes.toBytes(value)))

    val verified = Some(Array(IndexSpec.VERIFIED))
    val unverified = Some(Array(IndexSpec.UNVERIFIED))

    it("folds in the VERIFIED rows, as their data rows, and sends back the keys of the others") {
      val aggregator = new RowAggregator(overIndex)
      Seq(
        indexRow(1, 10, verified, 7, 5),
        indexRow(2, 10, unverified, 7, 100), // written, not yet checked: read from the data
        indexRow(3, 11, verified, 8, 4),
        indexRow(4, 11, verified, 7, -3), // VERIFIED, but the predicate (v > 0) leaves it out
        indexRow(5, 12, None, 7, 100), // no status: read from the data
        indexRow(6, 12, Some(Array[Byte](1, 1)), 7, 100), // a status that is none: read from the data
        // A data row key the table cannot have (an INT key is 4 bytes): read from the data, which reports it.
        indexRowKeyed(
          index.rowKey(Array(BinaryKeyCodec.comparable(IntegerType, 13)), Array[Byte](9)),
          verified,
          7,
          100
        ),
        indexRowKeyed(Array[Byte](1, 0, 0), verified, 7, 100), // no data row key in it: no index row
        indexRow(9, 14, verified, 7, 6)
      ).flatten.foreach(aggregator.add)
      aggregator.endOfRows()
      val batch = AggregateBatch.read(overIndex, aggregator.takeBatch())
      import scala.jdk.CollectionConverters._
      batch.rowsScanned shouldBe 9
      groups(batch) shouldBe Map(7 -> Seq(2L, 11L, 9), 8 -> Seq(1L, 4L, 3))
      def key(k: Int, indexed: Int) =
        index.rowKey(Array(BinaryKeyCodec.comparable(IntegerType, indexed)), codec.encode(Seq(k)))
      val badKey = index.rowKey(Array(BinaryKeyCodec.comparable(IntegerType, 13)), Array[Byte](9))
      batch.toCheck.asScala.map(_.toSeq) shouldBe Seq(key(2, 10), key(5, 12), key(6, 12), badKey).map(_.toSeq)
      batch.badKeys shouldBe 0
      batch.badKey shouldBe null
    }

    it("counts the keys it keeps toward the cap on what it holds, and sends them in the next batch") {
      val capped = overIndexRows(maxGroups = 2)
      val aggregator = new RowAggregator(capped)
      (indexRow(1, 10, verified, 7, 5) ++ indexRow(2, 10, unverified, 7, 5)).foreach(aggregator.add)
      aggregator.full shouldBe false
      indexRow(3, 10, verified, 7, 5).foreach(aggregator.add) // row 2 is done once row 3 starts
      aggregator.full shouldBe true
      AggregateBatch.read(capped, aggregator.takeBatch()).toCheck.size shouldBe 1
      aggregator.full shouldBe false
    }

    it("travels with its index in wire version 6 and later, and no earlier version can carry it") {
      val read = AggregateSpec.parseFrom(overIndex.toByteArray)
      read.isOverIndex shouldBe true
      read.toByteArray.toSeq shouldBe overIndex.toByteArray.toSeq
      AggregateSpec.parseFrom(spec.toByteArray).isOverIndex shouldBe false
      AggregateSpec.readsIndexRows(5) shouldBe false
      an[IllegalArgumentException] should be thrownBy overIndexRows(version = 5)
      AggregateSpec.parseFrom(spec.overIndexRows(index).toByteArray).isOverIndex shouldBe true

    }
  }

  describe("a row aggregator in a region server, under the server's memory budget") {

    /** Folds `rows` as a region server does, sending a batch whenever the aggregator is full; the batches. */
    def aggregate(aggregator: RowAggregator, rows: Seq[Seq[KeyValue]], budget: MemoryBudget): Seq[AggregateBatch] = {
      val batches = Seq.newBuilder[AggregateBatch]
      def send(): Unit = batches += AggregateBatch.read(
        spec,
        org.apache.hadoop.hbase.client.Result.create(Array(aggregator.takeBatchCell()))
      )
      rows.foreach { r =>
        r.foreach(aggregator.add)
        budget.used() should be <= (budget.limit() + 1000) // one group at most beyond the budget
        if (aggregator.full()) send()
      }
      aggregator.endOfRows()
      if (aggregator.hasRows) send()
      batches.result()
    }

    /** The batches' groups merged, as Spark's final aggregation merges them: count and sum add up, max is the max. */
    def merged(batches: Seq[AggregateBatch]): Map[Int, Seq[Any]] = batches.map(groups).reduce { (a, b) =>
      (a.keySet ++ b.keySet).map { k =>
        k ->
          ((a.get(k), b.get(k)) match {
            case (Some(x), Some(y)) =>
              Seq(
                x(0).asInstanceOf[Long] + y(0).asInstanceOf[Long],
                x(1).asInstanceOf[Long] + y(1).asInstanceOf[Long],
                if (x(2).toString.toLong >= y(2).toString.toLong) x(2) else y(2)
              )
            case (x, y) => x.orElse(y).get
          })
      }.toMap
    }

    val rows = (1 to 300).map(k => row(k, k % 97, Some(k)))
    val unbounded = groups(aggregate(new RowAggregator(spec), rows, new MemoryBudget(Long.MaxValue / 2)).head)

    it("sends its groups early when the budget refuses more, and the batches merge to the same groups") {
      val budget = new MemoryBudget(3000)
      val batches = aggregate(new RowAggregator(spec, budget), rows, budget)
      batches.size should be > 5
      batches.map(_.rowsScanned).sum shouldBe 300
      merged(batches) shouldBe unbounded
      budget.used() shouldBe 0
    }

    it("sends each row's group as it comes when other scans hold the whole budget, and gives back only its own") {
      val budget = new MemoryBudget(3000)
      budget.tryReserve(3000) shouldBe true // another region's groups
      val batches = aggregate(new RowAggregator(spec, budget), rows, budget)
      batches.size should be >= 290
      merged(batches) shouldBe unbounded
      budget.used() shouldBe 3000
    }

    it("gives its groups' memory back when the scan ends before they are sent") {
      val budget = new MemoryBudget(1 << 20)
      val aggregator = new RowAggregator(spec, budget)
      rows.take(50).flatten.foreach(aggregator.add)
      budget.used() should be > 0L
      aggregator.release()
      budget.used() shouldBe 0
    }
  }

  describe("the aggregation's wire format") {
    it("reads back what it writes") {
      AggregateSpec.parseFrom(spec.toByteArray).toByteArray.toSeq shouldBe spec.toByteArray.toSeq
    }

    it("refuses another wire version, and truncated or mutated bytes, with an IOException and nothing else") {
      val bytes = spec.toByteArray
      val newer = bytes.clone(); newer(3) = (ServerJar.WIRE_VERSION + 1).toByte
      val refused = the[IOException] thrownBy AggregateSpec.parseFrom(newer)
      refused.getMessage should
        (include(s"written with wire version ${ServerJar.WIRE_VERSION + 1}") and
          include(
            s"reads versions ${ServerJar.OLDEST_WIRE_VERSION} to ${ServerJar.WIRE_VERSION}; deploy the server jar that matches the client"
          ))
      val random = new Random(3)
      (1 to 3000).foreach { _ =>
        val broken = if (random.nextBoolean()) bytes.take(random.nextInt(bytes.length))
        else {
          val b = bytes.clone();
          (1 to 1 + random.nextInt(3)).foreach(_ => b(random.nextInt(b.length)) = random.nextInt(256).toByte); b
        }
        try AggregateSpec.parseFrom(broken)
        catch { case _: IOException => }
      }
    }
  }
}
