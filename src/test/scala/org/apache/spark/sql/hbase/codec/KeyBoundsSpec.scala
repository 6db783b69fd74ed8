// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

class KeyBoundsSpec extends AnyFunSpec with Matchers {
  private def bytes(xs: Int*): Seq[Byte] = xs.map(_.toByte)

  describe("key bounds") {
    it("make the successor of a key the key followed by 0x00") {
      KeyBounds.successor(Array[Byte](1, 2)).toSeq shouldBe bytes(1, 2, 0)
      KeyBounds.successor(Array.emptyByteArray).toSeq shouldBe bytes(0)
    }

    it("end a prefix range by incrementing the last byte that is not 0xFF") {
      KeyBounds.prefixEnd(Array[Byte](1, 2)).toSeq shouldBe bytes(1, 3)
      KeyBounds.prefixEnd(Array[Byte](1, 0xff.toByte, 0xff.toByte)).toSeq shouldBe bytes(2)
      KeyBounds.prefixEnd(Array[Byte](0x7f)).toSeq shouldBe bytes(0x80)
    }

    it("leave a prefix range open when no key is greater than every key with that prefix") {
      KeyBounds.prefixEnd(Array[Byte](0xff.toByte, 0xff.toByte)) shouldBe empty
      KeyBounds.prefixRange(Array.emptyByteArray) match {
        case (start, stop) => (start.toSeq, stop.toSeq) shouldBe ((Nil, Nil))
      }
    }
  }
}
