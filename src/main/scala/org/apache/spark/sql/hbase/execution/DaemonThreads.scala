package org.apache.spark.sql.hbase.execution

import scala.concurrent.ExecutionContext

/** Small pools for HBase calls made in parallel: daemon threads, so they never keep a JVM alive, which end after a minute idle. */
object DaemonThreads {
  def pool(name: String, threads: Int): ExecutionContext = {
    val pool = new java.util.concurrent.ThreadPoolExecutor(
      threads,
      threads,
      60L,
      java.util.concurrent.TimeUnit.SECONDS,
      new java.util.concurrent.LinkedBlockingQueue[Runnable](),
      (r: Runnable) => {
        val thread = new Thread(r, name); thread.setDaemon(true); thread
      }
    )
    pool.allowCoreThreadTimeOut(true)
    ExecutionContext.fromExecutorService(pool)
  }
}
