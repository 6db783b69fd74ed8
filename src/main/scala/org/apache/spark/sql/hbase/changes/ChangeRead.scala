// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.sql.catalyst.types.DataTypeUtils
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.planner.{ScanLimits, ScanRequest}
import org.apache.spark.sql.types.{StringType, StructField, StructType, TimestampType}

/**
 * A read of the rows of `table` written after position `from` and at or before position `to`
 * (see [[ChangePosition]]): every row with a cell, or a delete marker, whose place is in that
 * span. Each row comes with its current values (`upsert`), or with its key alone when it no
 * longer exists (`delete`), and the time of its latest write in the span.
 */
final case class ChangeRead(
    table: HBaseTableDef,
    cluster: HBaseClusterConf,
    from: ChangePosition,
    to: ChangePosition,
    fetchSize: Int,
    skipBadRowKeys: Boolean
) {

  /** The read of the rows' current values: every column, by Gets. */
  def request: ScanRequest = {
    val attributes = DataTypeUtils.toAttributes(table.schema)
    ScanRequest(
      table,
      cluster,
      attributes,
      table.columns,
      attributes,
      ScanLimits(fetchSize, None),
      skipBadRowKeys = skipBadRowKeys
    )
  }

  def schema: StructType = ChangeRead.schema(table)

  /** The read on one line, as EXPLAIN shows it. */
  def describe: String =
    s"HBaseChanges ${table.described} written after $from, up to $to " +
      s"(cell time range [${from.millis}, ${to.timeRangeEnd}) ms)"
}

object ChangeRead {
  val ChangeType = "_change_type"
  val CommitTimestamp = "_commit_timestamp"
  val Upsert = "upsert"
  val Delete = "delete"

  /** The table's columns, then the kind of change and the time of the row's latest write in the read. */
  def schema(table: HBaseTableDef): StructType = {
    table.columns.find(c => Seq(ChangeType, CommitTimestamp).exists(_.equalsIgnoreCase(c.name))).foreach { c =>
      throw new HBaseSQLException(
        s"Reading the changes of HBase table '${table.name}': its column '${c.name}' has the name of a column " +
          s"the changes add ($ChangeType, $CommitTimestamp)"
      )
    }
    StructType(
      table.schema.fields ++ Seq(
        StructField(ChangeType, StringType, nullable = false),
        StructField(CommitTimestamp, TimestampType, nullable = false)
      )
    )
  }
}
