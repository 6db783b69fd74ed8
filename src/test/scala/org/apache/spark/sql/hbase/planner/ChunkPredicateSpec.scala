// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.scalacheck.Gen
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.scalatestplus.scalacheck.ScalaCheckPropertyChecks

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions._
import org.apache.spark.sql.hbase.codec.KeyBounds
import org.apache.spark.sql.hbase.rangeindex.ColumnStats
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/** Judging a WHERE clause against a chunk's min/max statistics, checked against the chunk's real rows. */
class ChunkPredicateSpec extends AnyFunSpec with Matchers with ScalaCheckPropertyChecks {
  implicit override val generatorDrivenConfig: PropertyCheckConfiguration =
    PropertyCheckConfiguration(minSuccessful = 3000)

  private val num = AttributeReference("a", IntegerType)()
  private val s = AttributeReference("s", StringType)()
  private val u = AttributeReference("u", IntegerType)() // not indexed

  private def stats(min: Any, max: Any, nulls: Long = 0, exact: Boolean = true) =
    ColumnStats(Option(min), Option(max), nulls, exact)

  private def mayHold(condition: Expression, columns: (Attribute, ColumnStats)*): Boolean =
    ChunkPredicate.mayHold(condition, 100, attr => columns.find(_._1.semanticEquals(attr)).map(_._2))

  private def str(v: String) = Literal(UTF8String.fromString(v), StringType)

  describe("a chunk") {
    val tenToTwenty = num -> stats(10, 20)

    it("is ruled out by a comparison no value in [min, max] satisfies, and kept at the edges") {
      mayHold(GreaterThan(num, Literal(20)), tenToTwenty) shouldBe false
      mayHold(GreaterThanOrEqual(num, Literal(20)), tenToTwenty) shouldBe true
      mayHold(LessThan(num, Literal(10)), tenToTwenty) shouldBe false
      mayHold(LessThanOrEqual(Literal(21), num), tenToTwenty) shouldBe false
      mayHold(EqualTo(num, Literal(5)), tenToTwenty) shouldBe false
      mayHold(EqualTo(num, Literal(15)), tenToTwenty) shouldBe true
      mayHold(In(num, Seq(Literal(1), Literal(25))), tenToTwenty) shouldBe false
      mayHold(In(num, Seq(Literal(1), Literal(19))), tenToTwenty) shouldBe true
    }

    it("follows AND, OR and NOT, and never rules out on a column it has no statistics for") {
      mayHold(And(GreaterThan(num, Literal(20)), EqualTo(u, Literal(1))), tenToTwenty) shouldBe false
      mayHold(Or(GreaterThan(num, Literal(20)), EqualTo(u, Literal(1))), tenToTwenty) shouldBe true
      mayHold(Not(GreaterThanOrEqual(num, Literal(10))), tenToTwenty) shouldBe false
      mayHold(Not(EqualTo(num, Literal(15))), num -> stats(15, 15)) shouldBe false
      mayHold(Not(EqualTo(num, Literal(15))), num -> stats(15, 15, exact = false)) shouldBe true
      mayHold(GreaterThan(u, Literal(1000)), tenToTwenty) shouldBe true
    }

    it("knows its NULLs: IS NULL needs one, NOT over a comparison cannot turn a NULL into TRUE") {
      mayHold(IsNull(num), tenToTwenty) shouldBe false
      mayHold(IsNull(num), num -> stats(10, 20, nulls = 3)) shouldBe true
      mayHold(IsNotNull(num), num -> ColumnStats(None, None, 100)) shouldBe false
      mayHold(Not(GreaterThanOrEqual(num, Literal(10))), num -> stats(10, 20, nulls = 3)) shouldBe false
      mayHold(EqualNullSafe(num, Literal(null, IntegerType)), num -> stats(10, 20, nulls = 3)) shouldBe true
      mayHold(EqualTo(num, Literal(null, IntegerType)), num -> stats(10, 20, nulls = 3)) shouldBe false
    }

    it("reads a CAST of the column that keeps order as the column itself") {
      mayHold(GreaterThan(Cast(num, LongType), Literal(20L)), tenToTwenty) shouldBe false
      mayHold(GreaterThan(Cast(num, LongType), Literal(19L)), tenToTwenty) shouldBe true
    }

    it("keeps strings whose cut-down bounds may hold the prefix asked for") {
      val abdToB = s -> stats(UTF8String.fromString("abd"), UTF8String.fromString("b"), exact = false)
      mayHold(StartsWith(s, str("abc")), abdToB) shouldBe false
      mayHold(StartsWith(s, str("ab")), abdToB) shouldBe true
      mayHold(EqualTo(s, str("b")), abdToB) shouldBe true
      mayHold(GreaterThan(s, str("b")), abdToB) shouldBe false
    }

    it("holds nothing when it has no rows") {
      ChunkPredicate.mayHold(Literal(true), 0, _ => None) shouldBe false
      ChunkPredicate.mayHold(Literal(true), 1, _ => None) shouldBe true
    }
  }

  describe("for random rows of every type and random clauses") {
    // Values chosen from small pools, so that clauses often hit the chunk's edges.
    val pools: Seq[(DataType, Seq[Any])] = Seq(
      IntegerType -> Seq(Int.MinValue, -5, 0, 3, 7, Int.MaxValue),
      LongType -> Seq(Long.MinValue, -1L, 0L, 2L, 9L),
      ShortType -> Seq(-3.toShort, 0.toShort, 4.toShort),
      ByteType -> Seq(-1.toByte, 0.toByte, 5.toByte),
      DoubleType -> Seq(Double.NegativeInfinity, -0.0, 0.0, 1.5, Double.PositiveInfinity, Double.NaN),
      FloatType -> Seq(-2.5f, 0.0f, 3.25f, Float.NaN),
      DecimalType(10, 2) -> Seq("-12.50", "0.00", "0.01", "99999999.99").map(v => Decimal(BigDecimal(v), 10, 2)),
      BooleanType -> Seq(false, true),
      DateType -> Seq(-1, 0, 19000, 20000),
      TimestampType -> Seq(-1L, 0L, 1700000000000000L),
      TimestampNTZType -> Seq(0L, 86400000000L),
      StringType -> Seq("", "a", "ab", "abc", "abd", "b", "\u00e9t\u00e9", "\uffff").map(UTF8String.fromString),
      BinaryType -> Seq(Array[Byte](), Array[Byte](0), Array[Byte](0, 1), Array[Byte](-1))
    )

    val x = AttributeReference("x", IntegerType)() // indexed, typed per case
    def attr(t: DataType) = AttributeReference("x", t)(x.exprId)

    def leaf(col: Attribute, pool: Seq[Any]): Gen[Expression] = {
      val value = Gen.frequency(9 -> Gen.oneOf(pool), 1 -> Gen.const(null)).map(v => Literal(v, col.dataType))
      val comparisons: Seq[(Expression, Expression) => Expression] =
        Seq(
          EqualTo(_, _),
          EqualNullSafe(_, _),
          LessThan(_, _),
          LessThanOrEqual(_, _),
          GreaterThan(_, _),
          GreaterThanOrEqual(_, _)
        )
      Gen.frequency(
        6 ->
          (for { c <- Gen.oneOf(comparisons); v <- value; flip <- Gen.prob(0.3) } yield
            if (flip) c(v, col) else c(col, v)),
        2 -> Gen.listOfN(3, value).map(vs => In(col, vs)),
        1 -> Gen.listOfN(3, Gen.oneOf(pool)).map(vs => InSet(col, vs.toSet)),
        1 -> Gen.oneOf(IsNull(col), IsNotNull(col)),
        1 -> (if (col.dataType == StringType) value.map(StartsWith(col, _)) else Gen.const(IsNull(col))),
        1 ->
          (if (col.dataType == IntegerType) value.map(v => GreaterThan(Cast(col, LongType), Cast(v, LongType)))
           else Gen.const(IsNotNull(col))),
        1 -> Gen.oneOf(Literal(true), Literal(false), Literal(null, BooleanType)),
        1 -> Gen.oneOf(Seq(3, 7)).map(v => EqualTo(u, Literal(v)))
      )
    }

    def clause(col: Attribute, pool: Seq[Any], depth: Int): Gen[Expression] =
      if (depth == 0) leaf(col, pool)
      else Gen.frequency(
        3 -> leaf(col, pool),
        2 -> (for { l <- clause(col, pool, depth - 1); r <- clause(col, pool, depth - 1) } yield And(l, r)),
        2 -> (for { l <- clause(col, pool, depth - 1); r <- clause(col, pool, depth - 1) } yield Or(l, r)),
        1 -> clause(col, pool, depth - 1).map(Not(_))
      )

    /** Exact statistics of the rows' x values, or for strings at times bounds cut to a prefix. */
    def statsOf(t: DataType, values: Seq[Any], cut: Boolean): ColumnStats = {
      val ordering = InterpretedOrdering.forSchema(Seq(t)).on[Any](v => new GenericInternalRow(Array[Any](v)))
      val present = values.filter(_ != null)
      val nulls = values.count(_ == null).toLong
      if (present.isEmpty) ColumnStats(None, None, nulls)
      else if (t == StringType && cut) {
        val (lo, hi) = (present.min(ordering).asInstanceOf[UTF8String], present.max(ordering).asInstanceOf[UTF8String])
        val loCut = UTF8String.fromBytes(lo.getBytes.take(1))
        val hiBytes = KeyBounds.prefixEnd(hi.getBytes.take(1))
        // A cut max must still bound every value: the least string above every one with its prefix.
        val hiCut = if (hiBytes.isEmpty) hi else UTF8String.fromBytes(hiBytes)
        ColumnStats(Some(loCut), Some(hiCut), nulls, exact = false)
      } else ColumnStats(Some(present.min(ordering)), Some(present.max(ordering)), nulls)
    }

    it("keeps every chunk that holds a row the clause is TRUE on") {
      val cases = for {
        (t, pool) <- Gen.oneOf(pools)
        rows <- Gen.choose(1, 6).flatMap(n =>
          Gen.listOfN(
            n,
            Gen.zip(
              Gen.frequency(5 -> Gen.oneOf(pool), 1 -> Gen.const(null)),
              Gen.oneOf(3, 7)
            )
          )
        )
        cut <- Gen.prob(0.5)
        condition <- clause(attr(t), pool, 3)
      } yield (t, rows, cut, condition)
      var ruledOut = 0
      forAll(cases) { case (t, rows, cut, condition) =>
        val col = attr(t)
        val st = statsOf(t, rows.map(_._1), cut)
        val bound = BindReferences.bindReference(condition, AttributeSeq(Seq(col, u)))
        val anyTrue = rows.exists { case (v, w) => bound.eval(InternalRow(v, w)) == true }
        val kept = ChunkPredicate.mayHold(condition, rows.size, attr => if (attr.exprId == x.exprId) Some(st) else None)
        if (!kept) ruledOut += 1
        withClue(s"$condition over ${rows.mkString(", ")} with $st: ")(if (anyTrue) kept shouldBe true)
      }
      withClue("chunks ruled out: ")(ruledOut should be > 300)
    }
  }
}
