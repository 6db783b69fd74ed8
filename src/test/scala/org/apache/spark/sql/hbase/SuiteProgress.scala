// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.file.{Files, Paths, StandardCopyOption}

import org.scalatest.Reporter
import org.scalatest.events.{Event, SuiteStarting}

/**
 * For the test_time benchmark (benchmarks/suites/test_time.py): each test JVM writes the suite it
 * runs now to `scala-<pid>` in the directory TEST_TIME_PROGRESS names, so that a sampler outside
 * it can tell which spec the CPU of each of the two test JVMs goes to. Without TEST_TIME_PROGRESS
 * it does nothing.
 */
class SuiteProgress extends Reporter {
  private val file = sys.env.get("TEST_TIME_PROGRESS").map(Paths.get(_, s"scala-${ProcessHandle.current.pid}"))

  override def apply(event: Event): Unit = event match {
    case started: SuiteStarting =>
      file.foreach { f =>
        // Replaced whole, so that the sampler never reads half a name.
        val partial = f.resolveSibling(s"${f.getFileName}.tmp")
        Files.writeString(partial, started.suiteName)
        Files.move(partial, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
      }
    case _ =>
  }
}
