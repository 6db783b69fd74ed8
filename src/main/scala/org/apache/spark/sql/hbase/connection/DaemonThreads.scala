// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.util.concurrent.{ExecutorService, LinkedBlockingQueue, ThreadPoolExecutor, TimeUnit}

import scala.concurrent.ExecutionContext

/** Small pools for HBase calls made in parallel: daemon threads, so they never keep a JVM alive, which end after a minute idle. */
object DaemonThreads {
  def executor(name: String, threads: Int): ExecutorService = {
    val pool = new ThreadPoolExecutor(
      threads,
      threads,
      60L,
      TimeUnit.SECONDS,
      new LinkedBlockingQueue[Runnable](),
      (r: Runnable) => {
        val thread = new Thread(r, name); thread.setDaemon(true); thread
      }
    )
    pool.allowCoreThreadTimeOut(true)
    pool
  }

  def pool(name: String, threads: Int): ExecutionContext = ExecutionContext.fromExecutorService(executor(name, threads))
}
