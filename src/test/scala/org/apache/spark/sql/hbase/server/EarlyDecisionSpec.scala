// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.collection.mutable.ArrayBuffer
import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{Cell, CellComparator, CellUtil, KeyValue}
import org.apache.hadoop.hbase.filter.Filter.ReturnCode
import org.apache.hadoop.hbase.util.Bytes
import org.scalacheck.{Gen, Shrink}
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.IntegerType

/**
 * The region server's filter decides a row's predicate as soon as the cells read so far settle it,
 * and stops reading the row (RowPredicate.evalPartial, Outcomes). Deciding early must never change
 * which rows, and which of their cells, leave the server: random predicates on random rows, read
 * cell by cell as HBase reads them, against the predicate evaluated on the whole row.
 */
class EarlyDecisionSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 10000)

  // Report cases as generated: a shrunk predicate no longer matches its operands.
  implicit def noShrink[T]: Shrink[T] = Shrink.shrinkAny

  private val codec = new BinaryKeyCodec(Seq(IntegerType, IntegerType))
  private def int(v: Int): Array[Byte] = BinaryKeyCodec.comparable(IntegerType, v)
  private val values = 0 to 3

  import EarlyDecisionSpec._

  /** The columns operands and outputs read, over three families. */
  private val columns: Seq[Column] = Seq("a" -> "", "a" -> "m", "a" -> "q", "b" -> "a", "b" -> "c", "c" -> "z")

  /** Columns no operand reads, between and after those. */
  private val otherColumns: Seq[Column] = Seq("a" -> "b", "b" -> "", "c" -> "a", "d" -> "x")

  // ---------------------------------------------------------------------------------------------
  // Generators

  private val operandLists: Gen[Seq[OperandSpec]] = Gen.choose(1, 6).flatMap(n =>
    Gen.listOfN(n, Gen.frequency(1 -> Gen.choose(0, 1).map(Left(_)), 3 -> Gen.oneOf(columns).map(Right(_))))
  )

  private def leaf(operands: Int): Gen[RowPredicate] = for {
    operand <- Gen.choose(0, operands - 1)
    predicate <- Gen.oneOf(
      Gen.const(RowPredicate.isNull(operand)),
      for {
        op <- Gen.oneOf("=", "<", "<=", ">", ">=", "<=>")
        v <- Gen.oneOf(values)
      } yield RowPredicate.compare(op, operand, int(v)),
      Gen.atLeastOne(values).map(vs => RowPredicate.in(operand, vs.map(int).toSeq: _*))
    )
  } yield predicate

  private def predicates(operands: Int, depth: Int): Gen[RowPredicate] =
    if (depth == 0) leaf(operands)
    else {
      val children = Gen.frequency(1 -> Gen.const(0), 8 -> Gen.choose(1, 3)).flatMap(n =>
        Gen.listOfN(n, predicates(operands, depth - 1))
      )
      Gen.frequency(
        3 -> leaf(operands),
        3 -> children.map(cs => RowPredicate.and(cs: _*)),
        3 -> children.map(cs => RowPredicate.or(cs: _*)),
        2 -> predicates(operands, depth - 1).map(RowPredicate.not)
      )
    }

  /** A row with some of the columns, each in one to three versions, newest first, in HBase's order. */
  private def rows(key: Array[Byte]): Gen[Seq[Cell]] = for {
    present <- Gen.someOf(columns ++ otherColumns).suchThat(_.nonEmpty)
    versions <-
      Gen.listOfN(present.size, Gen.listOfN(3, Gen.oneOf(values)).flatMap(vs => Gen.choose(1, 3).map(vs.take)))
  } yield present.toSeq.zip(versions).flatMap { case ((f, q), vs) =>
    vs.zipWithIndex.map { case (v, i) =>
      new KeyValue(key, Bytes.toBytes(f), Bytes.toBytes(q), 100L - i, Bytes.toBytes(v)): Cell
    }
  }.sorted(Ordering.comparatorToOrdering(CellComparator.getInstance()))

  private val cases: Gen[Case] = for {
    operands <- operandLists
    predicate <- predicates(operands.size, 3)
    key <- Gen.listOfN(2, Gen.oneOf(values))
    cells <- rows(codec.encode(key))
    outputs <- Gen.frequency(1 -> Gen.const(None), 4 -> Gen.someOf(columns ++ otherColumns).map(c => Some(c.toSeq)))
  } yield Case(operands, predicate, key, cells, outputs)

  // ---------------------------------------------------------------------------------------------
  // The filter as HBase drives it, and the whole row's answer

  private def column(c: Cell): Column = (
    Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength),
    Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength)
  )

  private def filterOf(c: Case): SkipScanFilter = new SkipScanFilter(
    codec.sliceLayout,
    null,
    c.operands.map {
      case Left(dim) => Operand.key(dim)
      case Right((f, q)) => Operand.cell(Bytes.toBytes(f), Bytes.toBytes(q), CellType.INT, 0, 0)
    }.toArray,
    c.predicate,
    c.outputs.map(_.map(o => Bytes.toBytes(o._1)).toArray).orNull,
    c.outputs.map(_.map(o => Bytes.toBytes(o._2)).toArray).orNull
  )

  /**
   * HBase's calls for one row: the row key, then each cell; NEXT_ROW ends the row in that family's
   * store only, so the next families' cells still come. An empty row is left out without asking
   * filterRow.
   */
  private def read(filter: SkipScanFilter, cells: Seq[Cell]): Read = {
    filter.reset()
    if (filter.filterRowKey(cells.head)) return Read(None, 0)
    val kept = ArrayBuffer[Cell]()
    val endedFamilies = scala.collection.mutable.Set[String]()
    var shown = 0
    for (cell <- cells if !endedFamilies(column(cell)._1)) {
      shown += 1
      filter.filterCell(cell) match {
        case ReturnCode.INCLUDE => kept += filter.transformCell(cell)
        case ReturnCode.SKIP =>
        case ReturnCode.NEXT_ROW => endedFamilies += column(cell)._1
        case other => fail(s"a return code HBase is not expected to get here: $other")
      }
    }
    filter.filterRowCells(kept.asJava)
    Read(if (kept.nonEmpty && !filter.filterRow()) Some(kept.toSeq) else None, shown)
  }

  /** The predicate on the whole row: a column's value is its newest cell's, a key dimension's its value. */
  private def matches(c: Case): Boolean = {
    val row: RowPredicate.Row = i =>
      c.operands(i) match {
        case Left(dim) => int(c.key(dim))
        case Right(col) =>
          c.cells.find(column(_) == col).map(cell => int(Bytes.toInt(CellUtil.cloneValue(cell)))).orNull
      }
    c.predicate.eval(row) == RowPredicate.TRUE
  }

  /** A matching row's cells: its output cells, all versions, and its first cell without a value if not one of them. */
  private def expectedCells(c: Case): Seq[Cell] = {
    def isOutput(cell: Cell) = c.outputs.forall(_.contains(column(cell)))
    val first = c.cells.head
    val firstWithoutValue = new KeyValue(
      CellUtil.cloneRow(first),
      CellUtil.cloneFamily(first),
      CellUtil.cloneQualifier(first),
      first.getTimestamp,
      Array.emptyByteArray
    )
    (if (isOutput(first)) Nil else Seq(firstWithoutValue)) ++ c.cells.filter(isOutput)
  }

  private def show(cells: Seq[Cell]): Seq[String] = cells.map(c =>
    s"${column(c)}@${c.getTimestamp}=${Bytes.toHex(CellUtil.cloneValue(c))}"
  )

  // ---------------------------------------------------------------------------------------------

  describe("sets of outcomes") {
    val all = RowPredicate.FALSE.toInt to RowPredicate.UNKNOWN.toInt
    def and3(x: Int, y: Int) =
      if (x == RowPredicate.FALSE || y == RowPredicate.FALSE) RowPredicate.FALSE
      else if (x == RowPredicate.UNKNOWN || y == RowPredicate.UNKNOWN) RowPredicate.UNKNOWN
      else RowPredicate.TRUE
    def not3(x: Int) =
      if (x == RowPredicate.UNKNOWN) RowPredicate.UNKNOWN
      else if (x == RowPredicate.TRUE) RowPredicate.FALSE
      else RowPredicate.TRUE
    def or3(x: Int, y: Int) = not3(and3(not3(x), not3(y)))
    def members(set: Int) = all.filter(v => (set & Outcomes.of(v.toByte)) != 0)
    def setOf(vs: Seq[Int]) = vs.map(v => Outcomes.of(v.toByte)).foldLeft(0)(_ | _)

    it("combine as SQL's three-valued AND, OR and NOT on every member, for every pair of sets") {
      for (a <- 1 to Outcomes.ANY; b <- 1 to Outcomes.ANY) {
        val pairs = for (x <- members(a); y <- members(b)) yield (x, y)
        withClue(s"sets $a and $b: ") {
          Outcomes.and(a, b) shouldBe setOf(pairs.map { case (x, y) => and3(x, y).toInt })
          Outcomes.or(a, b) shouldBe setOf(pairs.map { case (x, y) => or3(x, y).toInt })
        }
        Outcomes.not(a) shouldBe setOf(members(a).map(x => not3(x).toInt))
      }
    }

    it("hold whatever the predicate comes to once the pending operands come, and only that when none is pending") {
      val partialCases = for {
        operands <- Gen.choose(1, 5)
        predicate <- predicates(operands, 3)
        full <- Gen.listOfN(operands, Gen.option(Gen.oneOf(values)))
        pending <- Gen.listOfN(operands, Gen.oneOf(true, false))
      } yield (predicate, full, pending)
      forAll(partialCases) { case (predicate, full, pending) =>
        val whole: RowPredicate.Row = i => full(i).map(int).orNull
        def view(isPending: Int => Boolean) = new RowPredicate.PartialRow {
          override def value(i: Int): Array[Byte] = if (isPending(i)) fail("read a pending operand") else whole.value(i)
          override def pending(i: Int): Boolean = isPending(i)
        }
        val outcome = Outcomes.of(predicate.eval(whole))
        withClue(s"$predicate on $full, pending $pending: ") {
          (predicate.evalPartial(view(pending)) & outcome) shouldBe outcome
          predicate.evalPartial(view(_ => false)) shouldBe outcome
        }
      }
    }
  }

  describe("a scan's filter, deciding each row as early as its cells allow") {
    it("keeps the same rows and cells as the predicate on the whole row, and often reads less of a row") {
      var rows, matching, leftOutEarly, leftOutAtKey, keptEarly = 0
      forAll(cases) { c =>
        val filter = filterOf(c)
        val answer = read(filter, c.cells)
        val expected = if (matches(c)) Some(expectedCells(c)) else None
        withClue(s"${c.predicate} over ${c.operands} on key ${c.key}, cells ${show(c.cells)}, outputs ${c.outputs}: ") {
          answer.kept.map(show) shouldBe expected.map(show)
        }
        rows += 1
        if (expected.isDefined) {
          matching += 1
          if (answer.cellsShown < c.cells.size) keptEarly += 1
        } else if (answer.cellsShown < c.cells.size) {
          leftOutEarly += 1
          if (answer.cellsShown == 0) leftOutAtKey += 1
        }
      }
      info(s"$rows rows, $matching matching ($keptEarly of them read in part); of the others, $leftOutEarly " +
        s"left out before their last cell, $leftOutAtKey at the key")
      leftOutEarly should be > (rows - matching) / 4
      leftOutAtKey should be > (rows - matching) / 20
      keptEarly should be > matching / 20
    }

    it("starts afresh on each row") {
      forAll(cases, cases) { (first, second) =>
        val filter = filterOf(second)
        read(filter, first.cells)
        read(filter, second.cells).kept.map(show) shouldBe read(filterOf(second), second.cells).kept.map(show)
      }
    }
  }
}

object EarlyDecisionSpec {
  private type Column = (String, String)

  /** An operand: a key dimension or a column. */
  private type OperandSpec = Either[Int, Column]

  private final case class Case(
      operands: Seq[OperandSpec],
      predicate: RowPredicate,
      key: Seq[Int],
      cells: Seq[Cell],
      outputs: Option[Seq[Column]]
  )

  /** What leaves the server for a row: its cells, or None; and how many cells the filter was shown. */
  private final case class Read(kept: Option[Seq[Cell]], cellsShown: Int)
}
