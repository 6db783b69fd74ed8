// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.util.Random

import org.apache.hadoop.hbase.util.Bytes
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

/**
 * The patch an UPDATE sends for the region servers to merge into a packed cell: applied to a cell,
 * it gives the cell of the old values with the patch's columns replaced, read back column by
 * column; the expected values are worked out here from the two lists, not by the code under test.
 */
class PackedPatchSpec extends AnyFunSpec with Matchers {
  private def cellOf(values: Seq[Option[String]]): Array[Byte] =
    PackedCellWriter.write(values.map(_.map(Bytes.toBytes).orNull).toArray)

  private def valuesOf(cell: Array[Byte]): Seq[Option[String]] = {
    val packed = PackedCell.read(cell, 0, cell.length)
    (0 until packed.columns).map(i => Option(packed.value(i)).map(v => Bytes.toString(v)))
  }

  private def patchOf(set: Seq[(Int, Option[String])]): Array[Byte] =
    PackedPatch.write(set.map(_._1).toArray, set.map(_._2.map(Bytes.toBytes).orNull).toArray)

  private def applied(cell: Option[Array[Byte]], patch: Array[Byte]): Seq[Option[String]] = {
    val old = cell.orNull
    valuesOf(PackedPatch.applied(old, 0, if (old == null) 0 else old.length, patch, 0, patch.length))
  }

  /** The old values with the patch's set, as far as the last value (a packed cell ends there). */
  private def expected(old: Seq[Option[String]], set: Seq[(Int, Option[String])]): Seq[Option[String]] = {
    val width = (old.size +: set.map(_._1 + 1)).max
    val all = (0 until width).map(i => set.find(_._1 == i).map(_._2).getOrElse(old.lift(i).flatten))
    all.take(all.lastIndexWhere(_.isDefined) + 1)
  }

  describe("a patch of a packed cell") {
    it("replaces the columns it names, NULL among them, and keeps every other") {
      val old = Seq(Some("a"), None, Some("c"), Some(""))
      val set = Seq(0 -> Some("A"), 2 -> None, 1 -> Some("bee"))
      applied(Some(cellOf(old)), patchOf(set)) shouldBe Seq(Some("A"), Some("bee"), None, Some(""))
    }

    it("widens a cell written before columns were added, and makes one where the family had none") {
      applied(Some(cellOf(Seq(Some("a")))), patchOf(Seq(3 -> Some("d")))) shouldBe
        Seq(Some("a"), None, None, Some("d"))
      applied(None, patchOf(Seq(1 -> Some("b")))) shouldBe Seq(None, Some("b"))
      applied(None, patchOf(Seq(1 -> None))) shouldBe empty
    }

    it("gives what replacing the values one by one gives, for random cells and patches") {
      val random = new Random(7)
      def value(): Option[String] =
        if (random.nextInt(4) == 0) None else Some(random.alphanumeric.take(random.nextInt(300)).mkString)
      for (_ <- 1 to 500) {
        val old = Seq.fill(random.nextInt(12))(value())
        val set = random.shuffle((0 until 14).toList).take(1 + random.nextInt(5)).map(_ -> value())
        withClue(s"$old with $set: ")(applied(Some(cellOf(old)), patchOf(set)) shouldBe expected(old, set))
      }
    }

    it(
      "is refused when it is not a patch: a wire version without patches or one to come, cut, padded, or a column named twice"
    ) {
      val patch = patchOf(Seq(0 -> Some("abc")))
      def refusal(bytes: Array[Byte]): String =
        intercept[PackedPatch.Malformed](applied(None, bytes)).getMessage
      refusal(Array(9.toByte) ++ patch.drop(1)) should
        include("patch of wire version 9, where this region server reads 5 to")
      refusal(Array(4.toByte) ++ patch.drop(1)) should include("patch of wire version 4")
      refusal(patch.dropRight(1)) should include("value 0 is cut")
      refusal(patch :+ 0.toByte) should include("1 bytes after the last value")
      refusal(patchOf(Seq(2 -> None, 2 -> Some("x")))) should include("column 2 is set twice")
      refusal(Array.emptyByteArray) should include("patch version missing")
    }

    it("names the family its client sends it under, which no HBase family can be called") {
      Bytes.toString(PackedPatch.family(Bytes.toBytes("f"))) shouldBe "spark.hbase.sql.patch:f"
      val refused = intercept[IllegalArgumentException](
        org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName(
          PackedPatch.family(Bytes.toBytes("f"))
        )
      )
      refused.getMessage should include(":")
    }
  }
}
