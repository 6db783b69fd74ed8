// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import java.util.concurrent.{Callable, ExecutionException, ExecutorService, Future, TimeUnit, TimeoutException}
import java.util.concurrent.atomic.{AtomicBoolean, AtomicInteger}

import org.apache.spark.TaskContext

import org.apache.spark.sql.hbase.connection.DaemonThreads

/**
 * Reads several regions at once, for a collect read on the driver and for the single task that
 * reads all regions of an aggregate: at most `threads` at a time per JVM, on daemon threads of a
 * shared pool. When one read fails, the caller is interrupted, or the Spark task it runs in is
 * killed, the other reads are cancelled (their threads interrupted, the ones not begun never
 * begin), and the call returns only once every read that began has ended, so that each has
 * closed what it opened.
 */
final class ParallelReads(name: String, threads: Int) {
  private lazy val pool: ExecutorService = DaemonThreads.executor(name, threads)

  /** Each read's result, in order; or the first failure, once every read that began has ended. */
  def all[T](reads: Seq[() => T]): Seq[T] = {
    val running = new AtomicInteger()
    val abandoned = new AtomicBoolean()
    val futures: Seq[Future[T]] = reads.map { read =>
      pool.submit(new Callable[T] {
        override def call(): T = {
          running.incrementAndGet()
          try {
            if (abandoned.get()) throw new InterruptedException("region reads abandoned")
            read()
          } finally running.decrementAndGet()
        }
      })
    }
    try futures.map(awaitOne)
    catch {
      case e: Throwable =>
        // Set before waiting: a read that begins after the wait began sees it and stops at once.
        abandoned.set(true)
        futures.foreach(_.cancel(true))
        awaitEnd(running)
        throw e
    }
  }

  private def awaitOne[T](future: Future[T]): T = {
    var result: Option[T] = None
    while (result.isEmpty) {
      try result = Some(future.get(ParallelReads.PollMillis, TimeUnit.MILLISECONDS))
      catch {
        case _: TimeoutException =>
          if (Thread.currentThread().isInterrupted) throw new InterruptedException("region reads interrupted")
          Option(TaskContext.get()).foreach(_.killTaskIfInterrupted())
        case e: ExecutionException => throw e.getCause
      }
    }
    result.get
  }

  /**
   * Waits, within a bound, until no read runs. A caller that was interrupted still waits (its
   * interrupt is kept for after), unless it is interrupted again.
   */
  private def awaitEnd(running: AtomicInteger): Unit = {
    val interrupted = Thread.interrupted()
    val deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ParallelReads.EndWaitSeconds)
    try while (running.get() > 0 && System.nanoTime() < deadline) Thread.sleep(10)
    catch { case _: InterruptedException => Thread.currentThread().interrupt() }
    finally if (interrupted) Thread.currentThread().interrupt()
  }
}

object ParallelReads {
  private val PollMillis = 100L
  // An interrupted HBase call ends at once; a read that does not is left to end on its own.
  private val EndWaitSeconds = 60L
}
