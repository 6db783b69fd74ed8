// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import org.apache.hadoop.hbase.{Cell, CellComparator, KeyValue}
import org.apache.hadoop.hbase.util.Bytes
import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.hbase.codec.BinaryKeyCodec
import org.apache.spark.sql.types.IntegerType

/** The operand values a region server captures from a row's cells, which arrive in HBase's column order. */
class RowOperandsSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 2000)

  private val codec = new BinaryKeyCodec(Seq(IntegerType))
  private val rowKey = codec.encode(Seq(42))
  private val columns = Seq(("a", ""), ("a", "m"), ("a", "q"), ("a", "q1"), ("b", "a"), ("b", "c"), ("c", "z"))

  /** A row holding some of the columns, each in up to three versions, newest first. */
  private val rows: Gen[Seq[Cell]] = for {
    present <- Gen.someOf(columns)
    versions <- Gen.listOfN(present.size, Gen.choose(1, 3))
  } yield present.zip(versions).flatMap { case ((f, q), n) =>
    (1 to n).map(v =>
      new KeyValue(rowKey, Bytes.toBytes(f), Bytes.toBytes(q), v.toLong, Bytes.toBytes(s"$f:$q@$v".hashCode))
    )
  }.toList.map(c => c: Cell).sorted(Ordering.comparatorToOrdering(CellComparator.getInstance()))

  /** Operands on cells, in any order and possibly repeated, and on the key. */
  private val operandLists: Gen[Seq[Either[Int, (String, String)]]] =
    Gen.nonEmptyListOf(Gen.frequency(1 -> Gen.const(Left(0)), 6 -> Gen.oneOf(columns).map(Right(_))))

  describe("a row's operands") {
    it("hold the newest cell of their column, NULL without one, and the key's value, whatever the operands' order") {
      forAll(rows, operandLists) { (cells, operandList) =>
        val operands = operandList.map {
          case Left(dim) => Operand.key(dim)
          case Right((f, q)) => Operand.cell(Bytes.toBytes(f), Bytes.toBytes(q), CellType.INT, 0, 0)
        }.toArray
        val row = new RowOperands(codec.sliceLayout, operands)
        row.reset(rowKey)
        cells.foreach(row.capture)
        operandList.zipWithIndex.foreach {
          case (Left(_), i) => Option(row.value(i)).map(_.toSeq) shouldBe
              Some(BinaryKeyCodec.comparable(IntegerType, 42).toSeq)
          case (Right((f, q)), i) =>
            val newest = cells.find(c =>
              Bytes.toString(c.getFamilyArray, c.getFamilyOffset, c.getFamilyLength) == f &&
                Bytes.toString(c.getQualifierArray, c.getQualifierOffset, c.getQualifierLength) == q
            )
            val expected = newest.map(c =>
              BinaryKeyCodec.comparable(
                IntegerType,
                Bytes.toInt(c.getValueArray, c.getValueOffset, c.getValueLength)
              ).toSeq
            )
            withClue(s"operand $i on $f:$q: ")(Option(row.value(i)).map(_.toSeq) shouldBe expected)
        }
      }
    }
  }
}
