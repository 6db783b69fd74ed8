// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException

/** A failure's chain of causes, as far as the HBase client's wrapping goes (bounded, in case of a cycle). */
object Causes {
  def of(e: Throwable): Seq[Throwable] = Iterator.iterate(e)(next).takeWhile(_ != null).take(20).toSeq

  // A batch of writes (BufferedMutator) that failed holds each row's failure apart from its cause.
  private def next(e: Throwable): Throwable = e match {
    case batch: RetriesExhaustedWithDetailsException if batch.getCause == null && batch.getNumExceptions > 0 =>
      batch.getCause(0)
    case other => other.getCause
  }

  /** The first line of the innermost message: what the failure was, without its wrappers. */
  def rootMessage(e: Throwable): String =
    of(e).reverse.flatMap(c => Option(c.getMessage).filter(_.trim.nonEmpty)).headOption.getOrElse(
      e.toString
    ).linesIterator.next()
}
