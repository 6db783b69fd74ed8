// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import java.nio.charset.StandardCharsets

/** Names of families, qualifiers and tables, and text cells, are UTF-8 in HBase. */
object Utf8 {
  def bytes(s: String): Array[Byte] = s.getBytes(StandardCharsets.UTF_8)

  def string(bytes: Array[Byte]): String = new String(bytes, StandardCharsets.UTF_8)
}
