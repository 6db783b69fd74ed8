// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import org.apache.spark.sql.catalyst.expressions.{GenericInternalRow, InterpretedOrdering}
import org.apache.spark.sql.types.DataType

/** Spark's order of the Catalyst values of one type, as statistics compare them; one per type. */
object ValueOrdering {
  private val orderings = new java.util.concurrent.ConcurrentHashMap[DataType, Ordering[Any]]()

  def of(dataType: DataType): Ordering[Any] = orderings.computeIfAbsent(
    dataType,
    t =>
      InterpretedOrdering.forSchema(Seq(t)).on[Any](v => new GenericInternalRow(Array[Any](v)))
  )
}
