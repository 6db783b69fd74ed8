// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.metadata.TableFormat
import org.apache.spark.sql.types.DataType

/** Turns one non-key value into cell bytes and back. NULL is never encoded: it is no cell. */
trait ValueCodec extends Serializable {
  def encode(dataType: DataType, value: Any): Array[Byte]

  /** [[encode]] of a row's non-NULL field of this type, chosen once per column for a load's many rows. */
  def encoder(dataType: DataType): (InternalRow, Int) => Array[Byte] = {
    val get = InternalRow.getAccessor(dataType)
    (row, ordinal) => encode(dataType, get(row, ordinal))
  }

  /** The value of a cell, or null when the cell cannot hold a value of this type. */
  def decode(dataType: DataType, bytes: Array[Byte], offset: Int, length: Int): Any
}

object ValueCodec {
  def forFormat(format: TableFormat): ValueCodec = format match {
    case TableFormat.Binary => BinaryValueCodec
    case _: TableFormat.StringFormat => StringValueCodec
  }
}
