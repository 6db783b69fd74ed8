// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import org.apache.spark.sql.hbase.codec.{BinaryKeyCodec, KeyPrefixes}
import org.apache.spark.sql.types.{BinaryType, DataType, DoubleType, FloatType}

/**
 * The leading parts of a global index's row keys, as the planner bounds them: for each indexed
 * value given, 0x01 and the value's order-preserving bytes, text escaped and terminated (as the
 * region servers write them, `server.IndexSpec.rowKey`). The data row key that ends every index
 * key is a last key column of its own, which no predicate bounds, so an indexed value is never
 * the last part of a key.
 *
 * Only non-NULL values are encoded: a planner may bound an indexed column only where the WHERE
 * clause rejects its NULLs ([[prunable]]).
 */
final class IndexKeyLayout(indexedTypes: Seq[DataType]) extends KeyPrefixes {
  private val parts = indexedTypes.map(t => new BinaryKeyCodec(Seq(t, BinaryType)))

  override def keyTypes: Seq[DataType] = indexedTypes :+ BinaryType

  override def encodePrefix(values: Seq[Any]): Array[Byte] =
    values.zip(parts).toArray.flatMap { case (value, part) => 0x01.toByte +: part.encodePrefix(Seq(value)) }

  /**
   * The indexed values an index row key holds, NULL as null; null when the key is not one an
   * index of these types makes.
   */
  def values(indexKey: Array[Byte]): Array[Any] = {
    val buf = java.nio.ByteBuffer.wrap(indexKey)
    val out = new Array[Any](indexedTypes.size)
    try {
      var i = 0
      while (i < out.length) {
        buf.get() match {
          case 0x00 => out(i) = null
          case 0x01 => out(i) = BinaryKeyCodec.readPart(buf, indexedTypes(i))
          case _ => return null
        }
        i += 1
      }
      if (buf.hasRemaining) out else null
    } catch { case _: java.nio.BufferUnderflowException => null }
  }

  /**
   * Whether the planner may bound an indexed column of this type by its values: not FLOAT or
   * DOUBLE, whose -0.0 and 0.0 (and NaNs) are equal in SQL but not as bytes.
   */
  def prunable(dim: Int): Boolean = indexedTypes(dim) != FloatType && indexedTypes(dim) != DoubleType
}
