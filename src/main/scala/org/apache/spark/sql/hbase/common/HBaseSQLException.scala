// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.trees.Origin

/**
 * A user-facing error: the message names the statement part, table or column at fault, and,
 * for statement text, the line and position.
 */
class HBaseSQLException(
    message: String,
    cause: Option[Throwable] = None,
    line: Option[Int] = None,
    position: Option[Int] = None
) extends AnalysisException(message, line, position, cause, None, Map.empty[String, String], Array.empty) {

  /** A SQLSTATE of class 42 (statement error) tells clients such as spark-sql that this is the
   *  user's mistake, to report as a message rather than an internal error with a stack trace. */
  override def getSqlState: String = "42000"

  /**
   * Spark gives an error raised while it resolves part of a statement (a table function's
   * arguments) that part's position. Its own copy would be a plain AnalysisException with the
   * statement's text as context and no error class, which PySpark cannot print: it fails on the
   * missing class, and the user sees a NullPointerException instead of this message. So the copy
   * stays ours, with the line and position, without that context.
   */
  override def withPosition(origin: Origin): AnalysisException = {
    val positioned = new HBaseSQLException(message, cause, origin.line, origin.startPosition)
    positioned.setStackTrace(getStackTrace)
    positioned
  }
}

object HBaseSQLException {

  /** Our error inside `e`, e.g. thrown by a task and wrapped by the job that ran it. */
  def causeOf(e: Throwable): Option[HBaseSQLException] =
    Causes.of(e).collectFirst { case h: HBaseSQLException => h }
}
