// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.TaskContext

/**
 * What one region's read opened, closed once: when its rows run out, or at the end of the task
 * that stopped reading them sooner (a LIMIT, a failure).
 */
private[execution] final class RegionCloses {
  private val closes = scala.collection.mutable.ArrayBuffer.empty[() => Unit]

  def add(close: () => Unit): Unit = synchronized(closes += close)

  def closeAll(): Unit = {
    val now = synchronized { val all = closes.toList; closes.clear(); all }
    now.foldLeft(Option.empty[Throwable]) { (failed, close) =>
      try { close(); failed }
      catch { case e: Throwable => failed.orElse(Some(e)) }
    }.foreach(throw _)
  }

  def atEnd[T](rows: Iterator[T]): Iterator[T] = new Iterator[T] {
    override def hasNext: Boolean = rows.hasNext || { closeAll(); false }
    override def next(): T = rows.next()
  }
}

private[execution] object RegionCloses {

  /** The rows `read` returns, what it opens closed when they run out or when `context`'s task ends. */
  def closedAtEnd[T](context: TaskContext)(read: ((() => Unit) => Unit) => Iterator[T]): Iterator[T] = {
    val closes = new RegionCloses
    context.addTaskCompletionListener[Unit](_ => closes.closeAll())
    closes.atEnd(read(closes.add))
  }
}
