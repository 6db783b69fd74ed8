// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}

/** How EXPLAIN writes an expression over a table's columns. */
object ExpressionText {

  /**
   * Its SQL with the columns' bare names: a plan reads one table, and a column keeps the name it
   * was resolved through (`t.c`, `hbase.t.c`, an alias's), which would make the same read explain
   * differently by how the query named the table.
   */
  def of(expression: Expression): String =
    expression.transform { case a: AttributeReference if a.qualifier.nonEmpty => a.withQualifier(Nil) }.sql
}
