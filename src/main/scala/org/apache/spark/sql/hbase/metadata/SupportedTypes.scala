// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.apache.spark.sql.types._

/** The column types our codec can store in keys and values. */
object SupportedTypes {
  private val atomic: Seq[DataType] = Seq(
    BooleanType,
    ByteType,
    ShortType,
    IntegerType,
    LongType,
    FloatType,
    DoubleType,
    StringType,
    BinaryType,
    DateType,
    TimestampType,
    TimestampNTZType
  )

  def isSupported(dataType: DataType): Boolean = dataType match {
    case StringType => true
    case _: DecimalType => true
    case other => atomic.contains(other)
  }

  def describe: String = (atomic.map(_.sql) :+ "DECIMAL(p,s)").mkString(", ")
}
