// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.channels.FileChannel
import java.nio.file.{Files, Path, Paths, StandardOpenOption}

import scala.sys.process._

/**
 * The HBase that HBase-backed suites run against, made ready when the first of them runs, so that
 * a run of pure specs alone starts none. With HBASE_CONF_DIR given by whoever runs the tests, it is
 * that HBase. Otherwise it is the embedded HBase in the data directory the build names: one that
 * already runs there is reused (a loop of `testOnly` pays HBase's start once), and one that does
 * not is started, with three region servers so that suites meet regions spread over several, and
 * stopped when the last test JVM using it exits, pass or fail.
 *
 * `sbt test` runs the suites in two JVMs at once (build.sbt), which share that HBase: each holds a
 * shared lock on a file beside the data directory for as long as it may use it, one at a time they
 * start it or find it running under another lock, and the last to leave stops it if a test JVM
 * started it (a marker in the data directory says so; one started by hand is left running).
 */
object TestHBase {

  /** Set by the build when the tests run on the embedded HBase; absent for an external HBase. */
  private val DataDirProperty = "spark.hbase.test.dataDir"
  private val LauncherProperty = "spark.hbase.test.launcher"

  private var ready = false

  /** Makes sure the HBase of this run serves; idempotent, and cheap after the first call. */
  def ensureRunning(): Unit = synchronized {
    if (!ready) {
      embedded.foreach { case (dataDir, launcher) => startUnlessRunning(dataDir, launcher) }
      ready = true
    }
  }

  private def embedded: Option[(Path, String)] =
    for {
      dir <- sys.props.get(DataDirProperty)
      launcher <- sys.props.get(LauncherProperty)
    } yield (Paths.get(dir), launcher)

  private def startUnlessRunning(dataDir: Path, launcher: String): Unit = {
    if (!Files.isExecutable(Paths.get(launcher)))
      sys.error(s"$launcher is missing: run ./bin/setup first, it creates .venv with the launcher")
    val log = ProcessLogger(line => System.err.println(line), line => System.err.println(line))
    // Held until this JVM exits: while any JVM holds it, the HBase stays up.
    val users = lockFile(dataDir, "users")
    val using = users.lock(0L, Long.MaxValue, true)
    val marker = dataDir.resolve(".started-by-tests")
    whileStarting(dataDir) {
      if (running(dataDir, launcher)) System.err.println(s"Tests reuse the embedded HBase already running in $dataDir")
      else {
        // What a stopped HBase left there (a crashed run's tables) is no state to start from.
        deleteRecursively(dataDir)
        System.err.println(s"Starting the embedded HBase for tests in $dataDir")
        val start = Seq(launcher, "local", "start", "--data-dir", dataDir.toString, "--region-servers", "3")
        val exit = Process(start, None, hbaseOpts.toSeq: _*).!(log)
        if (exit != 0) sys.error(s"The embedded HBase did not start (exit $exit); see ${dataDir.resolve("logs")}")
        Files.createFile(marker)
      }
    }
    Runtime.getRuntime.addShutdownHook(new Thread(() => {
      using.release()
      whileStarting(dataDir) {
        // No other JVM holds the users' lock: none uses the HBase, and none can start to before this one is done.
        val last = Option(users.tryLock()).isDefined
        if (last && Files.exists(marker)) {
          System.err.println("Stopping the embedded HBase the tests started")
          Seq(launcher, "local", "stop", "--data-dir", dataDir.toString).!(log)
          // An HBase started there by hand later is someone else's, to be left running.
          Files.deleteIfExists(marker)
        }
      }
    }))
  }

  private def running(dataDir: Path, launcher: String): Boolean =
    Seq(launcher, "local", "status", "--data-dir", dataDir.toString).!(ProcessLogger(_ => (), _ => ())) == 0

  /** Runs `body` holding the lock under which test JVMs start, reuse or stop the HBase, one at a time. */
  private def whileStarting[T](dataDir: Path)(body: => T): T = {
    val starting = lockFile(dataDir, "starting")
    val lock = starting.lock()
    try body
    finally { lock.release(); starting.close() }
  }

  /**
   * A lock file beside the data directory (which a start deletes). A JVM keeps the users' channel
   * open: closing any channel of a file drops the process's locks on it.
   */
  private def lockFile(dataDir: Path, name: String): FileChannel = {
    Files.createDirectories(dataDir.getParent)
    FileChannel.open(
      dataDir.resolveSibling(s"${dataDir.getFileName}.$name.lock"),
      StandardOpenOption.CREATE,
      StandardOpenOption.READ,
      StandardOpenOption.WRITE
    )
  }

  /**
   * The JVM flags of its servers, as for the Python suites' HBases: the C1 compiler only and the
   * serial collector. C2 compiles HBase's hot code again in each of the three server JVMs, which in
   * a test run costs more CPU than its faster code saves: the servers took a third less CPU over
   * AggregateDifferentialSpec. Left to whoever runs the tests when they set HBASE_OPTS.
   */
  private def hbaseOpts: Option[(String, String)] =
    if (sys.env.contains("HBASE_OPTS")) None
    else Some("HBASE_OPTS" -> "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

  private def deleteRecursively(path: Path): Unit =
    if (Files.exists(path)) {
      val walk = Files.walk(path)
      try walk.sorted(java.util.Comparator.reverseOrder[Path]()).forEach(p => Files.delete(p))
      finally walk.close()
    }
}
