// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server

import scala.util.Random

/**
 * Hostile variations of a valid payload, as a fuzzer makes them: flipped bits, bytes and 32-bit
 * words set to edge values (lengths and counts are 32-bit words), inserted, deleted, duplicated
 * and cut bytes; and payloads of random bytes, with or without a valid wire version first.
 */
object ByteMutations {
  private val EdgeBytes = Array[Byte](0, 1, -1, 0x7f, -0x80, 2, 3, 4, 5)
  private val EdgeInts =
    Array(0, 1, -1, 2, 3, 4, 16, 255, 1 << 16, 1 << 24, Int.MaxValue, Int.MinValue, Int.MaxValue - 3)

  /** One mutation of `seed`, named by what it did. */
  def mutate(seed: Array[Byte], random: Random): (String, Array[Byte]) = {
    val b = seed.clone()
    def at(from: Int = 0) = if (b.length <= from) 0 else from + random.nextInt(b.length - from)
    random.nextInt(8) match {
      case 0 if b.nonEmpty =>
        (1 to 1 + random.nextInt(3)).foreach { _ =>
          val i = at(); b(i) = (b(i) ^ (1 << random.nextInt(8))).toByte
        }
        "bit flips" -> b
      case 1 if b.nonEmpty =>
        b(at()) = if (random.nextBoolean()) EdgeBytes(random.nextInt(EdgeBytes.length)) else random.nextInt(256).toByte
        "byte set" -> b
      case 2 if b.length >= 8 =>
        val i = at(4).min(b.length - 4) // past the version, which has a mutation of its own
        putInt(b, i, EdgeInts(random.nextInt(EdgeInts.length)))
        "word set" -> b
      case 3 =>
        val i = at()
        "bytes inserted" -> (b.take(i) ++ Array.fill(1 + random.nextInt(8))(random.nextInt(256).toByte) ++ b.drop(i))
      case 4 if b.nonEmpty =>
        val i = at()
        "bytes deleted" -> (b.take(i) ++ b.drop(i + 1 + random.nextInt(8)))
      case 5 if b.nonEmpty => "cut short" -> b.take(at())
      case 6 if b.length > 4 =>
        val i = at(4)
        val n = 1 + random.nextInt((b.length - i).min(32))
        "bytes duplicated" -> (b.take(i + n) ++ b.slice(i, i + n) ++ b.drop(i + n))
      case _ =>
        putInt(b, 0, Seq(0, ServerJar.WIRE_VERSION + 1, -1, Int.MaxValue)(random.nextInt(4)))
        "other wire version" -> b
    }
  }

  /** Random bytes; half of them start with the right wire version, so that they reach the parser proper. */
  def random(random: Random): (String, Array[Byte]) = {
    val body = Array.fill(random.nextInt(200))(random.nextInt(256).toByte)
    if (random.nextBoolean()) "random bytes" -> body
    else {
      val b = new Array[Byte](4 + body.length)
      putInt(b, 0, ServerJar.WIRE_VERSION)
      System.arraycopy(body, 0, b, 4, body.length)
      "random bytes after the version" -> b
    }
  }

  private def putInt(b: Array[Byte], at: Int, v: Int): Unit = if (at + 4 <= b.length) {
    b(at) = (v >>> 24).toByte; b(at + 1) = (v >>> 16).toByte; b(at + 2) = (v >>> 8).toByte; b(at + 3) = v.toByte
  }
}
