// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.sql.types.DataType

/** StringFormat cells: the UTF-8 text of the value, as the HBase shell and ImportTsv write it. */
object StringValueCodec extends ValueCodec {
  private val conversions = new ConcurrentHashMap[DataType, TextConversion]()

  private def conversion(dataType: DataType): TextConversion =
    conversions.computeIfAbsent(dataType, t => new TextConversion(t))

  override def encode(dataType: DataType, value: Any): Array[Byte] = conversion(dataType).format(value)

  override def decode(dataType: DataType, bytes: Array[Byte], offset: Int, length: Int): Any =
    conversion(dataType).parse(bytes, offset, length)
}
