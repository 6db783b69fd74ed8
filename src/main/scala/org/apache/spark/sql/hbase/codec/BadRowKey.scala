// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef

/** The error for a row whose key is not a key of its table, such as a row another tool wrote. */
object BadRowKey {

  /** A key as HBase's shell prints it: printable ASCII as is, other bytes as \xNN. */
  def show(key: Array[Byte]): String = s"'${Bytes.toStringBinary(key)}'"

  def error(table: HBaseTableDef, key: Array[Byte], problem: String): HBaseSQLException =
    new HBaseSQLException(
      s"Table '${table.name}' (HBase table ${table.hbaseTable}): row ${show(key)} is not a row of the table: " +
        s"$problem. Another tool may have written it. Delete or rewrite the row, or set " +
        "spark.sql.hbase.read.badRowKeys=skip to leave such rows out of queries (they are counted in " +
        "the scan's 'rows skipped for bad row keys' metric)."
    )
}
