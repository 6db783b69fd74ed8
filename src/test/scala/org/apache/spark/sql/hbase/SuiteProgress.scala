// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.file.{Files, Paths, StandardCopyOption}

/**
 * For the test_time benchmark (benchmarks/suites/test_time.py): each test JVM writes the HBase-backed
 * suite it runs now to `scala-<pid>` in the directory TEST_TIME_PROGRESS names, so that a sampler
 * outside it can tell which spec the CPU of each of the two test JVMs goes to (a pure spec, seconds
 * at most, counts as the suite before it). Without TEST_TIME_PROGRESS it does nothing. (A ScalaTest
 * reporter would not do: with forked tests, sbt's JVM runs the reporters, for both test JVMs.)
 */
object SuiteProgress {
  private val file = sys.env.get("TEST_TIME_PROGRESS").map(Paths.get(_, s"scala-${ProcessHandle.current.pid}"))

  def started(suite: String): Unit = file.foreach { f =>
    // Replaced whole, so that the sampler never reads half a name.
    val partial = f.resolveSibling(s"${f.getFileName}.tmp")
    Files.writeString(partial, suite)
    Files.move(partial, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }
}
