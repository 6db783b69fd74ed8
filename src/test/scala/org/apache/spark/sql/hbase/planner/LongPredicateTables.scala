// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.hbase.metadata.{CellRef, HBaseColumn, HBaseTableDef, HBaseTableName, TableFormat}
import org.apache.spark.sql.types.{IntegerType, LongType}

/** The tables long predicates are planned over, in the spec and in the benchmark alike. */
object LongPredicateTables {

  /** Key k BIGINT, one value column. */
  val single: HBaseTableDef = HBaseTableDef(
    "t",
    HBaseTableName("default", "t"),
    Seq(
      HBaseColumn("k", LongType, nullable = false, None),
      HBaseColumn("v", IntegerType, nullable = true, Some(CellRef("f", "v")))
    ),
    Seq("k"),
    TableFormat.Binary
  )

  /** Key (k1 BIGINT, k2 INT), one value column. */
  val composite: HBaseTableDef = HBaseTableDef(
    "c",
    HBaseTableName("default", "c"),
    Seq(
      HBaseColumn("k1", LongType, nullable = false, None),
      HBaseColumn("k2", IntegerType, nullable = false, None),
      HBaseColumn("v", IntegerType, nullable = true, Some(CellRef("f", "v")))
    ),
    Seq("k1", "k2"),
    TableFormat.Binary
  )
}
