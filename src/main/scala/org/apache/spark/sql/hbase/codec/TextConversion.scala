// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.{BoundReference, Cast, EvalMode, Expression, GenericInternalRow}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String

/**
 * Values as text, the way Spark casts them to and from STRING, so StringFormat cells read and
 * write exactly like `CAST(x AS STRING)`. Timestamps are in UTC, so what is stored does not
 * depend on a session's time zone. Binary values are their raw bytes.
 */
final class TextConversion(dataType: DataType) extends Serializable {
  @transient private lazy val toText: Expression =
    Cast(BoundReference(0, dataType, nullable = true), StringType, Some(TextConversion.Zone))
  @transient private lazy val fromText: Expression =
    Cast(BoundReference(0, StringType, nullable = true), dataType, Some(TextConversion.Zone), EvalMode.TRY)

  def format(value: Any): Array[Byte] = dataType match {
    case BinaryType => value.asInstanceOf[Array[Byte]]
    case StringType => value.asInstanceOf[UTF8String].getBytes
    case _ => toText.eval(row(value)).asInstanceOf[UTF8String].getBytes
  }

  /** The value the text denotes, or null when it denotes none of this type. */
  def parse(bytes: Array[Byte], offset: Int, length: Int): Any = dataType match {
    case BinaryType => java.util.Arrays.copyOfRange(bytes, offset, offset + length)
    case StringType => UTF8String.fromBytes(bytes, offset, length)
    case _ => fromText.eval(row(UTF8String.fromBytes(bytes, offset, length)))
  }

  private def row(value: Any): InternalRow = new GenericInternalRow(Array[Any](value))
}

object TextConversion {
  val Zone = "UTC"
}
