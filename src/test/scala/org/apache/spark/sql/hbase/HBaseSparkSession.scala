// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.apache.spark.sql.SparkSession

/**
 * The Spark session the HBase-backed suites share, wired to the HBase of this test run (see
 * [[TestHBase]]): the embedded one in the directory whose conf/ the build names as HBASE_CONF_DIR,
 * or an external one named the same way.
 */
object HBaseSparkSession {
  lazy val session: SparkSession = {
    TestHBase.ensureRunning()
    require(
      sys.env.contains("HBASE_CONF_DIR"),
      "HBASE_CONF_DIR is not set: run the tests through sbt, which names the embedded HBase"
    )
    // Spark's executor and Janino load through the creating thread's context class loader.
    val thread = Thread.currentThread()
    thread.setContextClassLoader(new MissCachingClassLoader(thread.getContextClassLoader))
    SparkSession.builder()
      .master("local[2]")
      .appName("spark-hbase-sql tests")
      .config("spark.sql.extensions", classOf[HBaseSparkSessionExtension].getName)
      .config("spark.sql.catalog.hbase", classOf[connector.HBaseSparkCatalog].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      // Without it, each session's tasks load classes through a class loader of its own, which asks
      // the driver for every name it cannot find (generated code makes Janino look up many). The
      // specs add no jars or classes to their sessions; the differential specs take 4% less CPU.
      .config("spark.sql.artifact.isolation.enabled", "false")
      .getOrCreate()
  }
}
