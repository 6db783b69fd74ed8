// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.server.{CellType, KeyCheck, KeyLayout}
import org.apache.spark.sql.types.{BinaryType, DataType, StringType}

/**
 * StringFormat row keys: the text of each key column, joined by `delimiter`. The last column
 * takes the rest of the key, so only the other columns must not contain the delimiter.
 * Text order is value order only for a single string (or binary) key column.
 */
final class StringKeyCodec(val keyTypes: Seq[DataType], val delimiter: String) extends KeyCodec {
  require(delimiter.nonEmpty, "the key delimiter must not be empty")

  private val conversions = keyTypes.map(new TextConversion(_)).toArray
  private val delimiterBytes = Utf8.bytes(delimiter)

  override def preservesOrder: Boolean = keyTypes match {
    case Seq(StringType) | Seq(BinaryType) => true
    case _ => false
  }

  /** Text compares by value as its bytes do only for strings; a delimiter after it breaks ranges. */
  override def prunableKeyColumns: Int = keyTypes.takeWhile(t => t == StringType || t == BinaryType).size

  override def canRange(dim: Int): Boolean = dim == keyTypes.size - 1

  override lazy val sliceLayout: KeyLayout = new KeyLayout(
    keyTypes.indices.map(d => if (d == keyTypes.size - 1) KeyLayout.REST else KeyLayout.DELIMITED).toArray,
    new Array[Int](keyTypes.size),
    delimiterBytes
  )

  /**
   * Text compares as its values do for strings and binaries only. A slice before the last holds
   * the delimiter, which competes with the text's bytes, so there only equality is exact.
   */
  override def sliceCheck(dim: Int): SliceCheck = keyTypes(dim) match {
    case StringType | BinaryType => if (dim == keyTypes.size - 1) SliceCheck.Order else SliceCheck.Equality
    case _ => SliceCheck.Opaque
  }

  /** Text of strings and binaries is any bytes: a key is one when it has each column's delimiter. */
  override lazy val keyCheck: Option[KeyCheck] =
    if (!keyTypes.forall(t => t == StringType || t == BinaryType)) None
    else Some(new KeyCheck(sliceLayout, Array.fill(keyTypes.size)(CellType.BYTES), new Array[Int](keyTypes.size)))

  override def sliceOf(dim: Int, value: Any): Array[Byte] = {
    val text = conversions(dim).format(value)
    if (dim == keyTypes.size - 1) text else text ++ delimiterBytes
  }

  override def encode(values: Seq[Any]): Array[Byte] = {
    require(values.length == keyTypes.length, s"expected ${keyTypes.length} key values, got ${values.length}")
    encodeParts(values, trailingDelimiter = false)
  }

  override def encodePrefix(values: Seq[Any]): Array[Byte] =
    encodeParts(values, trailingDelimiter = values.length < keyTypes.length)

  private def encodeParts(values: Seq[Any], trailingDelimiter: Boolean): Array[Byte] = {
    val out = new java.io.ByteArrayOutputStream(32)
    values.zipWithIndex.foreach { case (value, i) =>
      if (value == null) throw new HBaseSQLException("NULL cannot be encoded in a row key")
      val text = conversions(i).format(value)
      if (i < keyTypes.length - 1 && indexOf(text, 0) >= 0) {
        throw new HBaseSQLException(
          s"Key part ${i + 1} '${Utf8.string(text)}' contains the key delimiter '$delimiter'"
        )
      }
      out.write(text)
      if (i < values.length - 1 || trailingDelimiter) out.write(delimiterBytes)
    }
    out.toByteArray
  }

  override def decode(key: Array[Byte]): Array[Any] = {
    val result = new Array[Any](keyTypes.length)
    var start = 0
    var i = 0
    while (i < keyTypes.length) {
      val end = if (i == keyTypes.length - 1) key.length else indexOf(key, start)
      if (end < 0) {
        throw new HBaseSQLException(
          s"Row key '${Utf8.string(key)}' has fewer than ${keyTypes.length} parts separated by '$delimiter'"
        )
      }
      result(i) = conversions(i).parse(key, start, end - start)
      if (result(i) == null) {
        throw new HBaseSQLException(
          s"Row key '${Utf8.string(key)}': part ${i + 1} '${Utf8.string(java.util.Arrays.copyOfRange(key, start, end))}' " +
            s"is not a valid ${keyTypes(i).sql}"
        )
      }
      start = end + delimiterBytes.length
      i += 1
    }
    result
  }

  private def indexOf(bytes: Array[Byte], from: Int): Int = {
    var i = from
    while (i <= bytes.length - delimiterBytes.length) {
      var j = 0
      while (j < delimiterBytes.length && bytes(i + j) == delimiterBytes(j)) j += 1
      if (j == delimiterBytes.length) return i
      i += 1
    }
    -1
  }
}
