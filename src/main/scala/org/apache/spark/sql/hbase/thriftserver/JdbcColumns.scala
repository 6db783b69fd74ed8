// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import java.sql.{DatabaseMetaData, Types}

import org.apache.spark.sql.types._

/**
 * A column as JDBC's getColumns describes it: the java.sql.Types code of its SQL type, its size,
 * digits and radix, whether it may be NULL, its remarks and its position (from 1).
 */
private[thriftserver] object JdbcColumns {

  def row(schema: String, table: String, field: StructField, position: Int): Array[AnyRef] = {
    val dataType = field.dataType
    Array[AnyRef](
      "", // TABLE_CAT
      schema,
      table,
      field.name,
      Int.box(typeCode(dataType)),
      dataType.sql, // TYPE_NAME
      size(dataType).map(Int.box).orNull, // COLUMN_SIZE
      null, // BUFFER_LENGTH
      digits(dataType).map(Int.box).orNull, // DECIMAL_DIGITS
      (if (isNumeric(dataType)) Int.box(10) else null), // NUM_PREC_RADIX
      Int.box(if (field.nullable) DatabaseMetaData.columnNullable else DatabaseMetaData.columnNoNulls),
      field.getComment().getOrElse(""), // REMARKS
      null, // COLUMN_DEF
      null, // SQL_DATA_TYPE
      null, // SQL_DATETIME_SUB
      null, // CHAR_OCTET_LENGTH
      Int.box(position), // ORDINAL_POSITION
      if (field.nullable) "YES" else "NO", // IS_NULLABLE
      null, // SCOPE_CATALOG
      null, // SCOPE_SCHEMA
      null, // SCOPE_TABLE
      null, // SOURCE_DATA_TYPE
      "NO" // IS_AUTO_INCREMENT
    )
  }

  def typeCode(dataType: DataType): Int = dataType match {
    case BooleanType => Types.BOOLEAN
    case ByteType => Types.TINYINT
    case ShortType => Types.SMALLINT
    case IntegerType => Types.INTEGER
    case LongType => Types.BIGINT
    case FloatType => Types.FLOAT
    case DoubleType => Types.DOUBLE
    case _: DecimalType => Types.DECIMAL
    case _: CharType => Types.CHAR
    case _: StringType | _: VarcharType => Types.VARCHAR
    case BinaryType => Types.BINARY
    case DateType => Types.DATE
    case TimestampType | TimestampNTZType => Types.TIMESTAMP
    case _: ArrayType => Types.ARRAY
    case _: MapType => Types.JAVA_OBJECT
    case _: StructType => Types.STRUCT
    case _ => Types.OTHER
  }

  private def isNumeric(dataType: DataType): Boolean = dataType.isInstanceOf[NumericType]

  /** Digits of precision for numbers, characters of the longest value for dates and times; None where unbounded. */
  private def size(dataType: DataType): Option[Int] = dataType match {
    case ByteType => Some(3)
    case ShortType => Some(5)
    case IntegerType => Some(10)
    case LongType => Some(19)
    case FloatType => Some(7)
    case DoubleType => Some(15)
    case d: DecimalType => Some(d.precision)
    case BooleanType => Some(1)
    case DateType => Some(10)
    case TimestampType | TimestampNTZType => Some(29)
    case _ => None
  }

  private def digits(dataType: DataType): Option[Int] = dataType match {
    case ByteType | ShortType | IntegerType | LongType => Some(0)
    case FloatType => Some(7)
    case DoubleType => Some(15)
    case d: DecimalType => Some(d.scale)
    case TimestampType | TimestampNTZType => Some(6)
    case _ => None
  }
}
