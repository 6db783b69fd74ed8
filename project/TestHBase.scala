// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import sbt._

/**
 * Where the tests find HBase. With HBASE_CONF_DIR set, that HBase. Otherwise the embedded HBase in
 * target/test-hbase, which the test JVM starts through the project's own launcher
 * (`spark-hbase local`) when the first suite that needs HBase runs, and stops when it exits; one
 * already running there is reused. A run of pure specs alone starts nothing (see the tests'
 * TestHBase).
 */
object TestHBase {
  def dataDir(root: File): File = root / "target" / "test-hbase"

  def external: Option[File] = sys.env.get("HBASE_CONF_DIR").map(file)

  def confDir(root: File): File = external.getOrElse(dataDir(root) / "conf")

  def launcher(root: File): File = root / ".venv" / "bin" / "spark-hbase"

  /** System properties of the test JVM: where the embedded HBase lives and how to start it. */
  def javaOptions(root: File): Seq[String] =
    if (external.isDefined) Nil
    else Seq(
      s"-Dspark.hbase.test.dataDir=${dataDir(root).getAbsolutePath}",
      s"-Dspark.hbase.test.launcher=${launcher(root).getAbsolutePath}"
    )

  /**
   * The specs that run the most queries, each a few minutes of Spark and HBase work, and a few more
   * chosen so that both JVMs end about together: they run in a JVM of their own beside the others',
   * so that `sbt test` takes about half as long on two cores when the Python suites are done first. The two JVMs share the test HBase (the tests' TestHBase);
   * no spec of one depends on what the other does to it.
   */
  val QueryHeavySpecs: Set[String] = Set(
    "PlannerDifferentialSpec",
    "AggregateDifferentialSpec",
    "GlobalIndexDifferentialSpec",
    "RangeIndexDifferentialSpec",
    "JoinDifferentialSpec",
    "AggregatesBelowKeyedJoinsSpec",
    "LargeInputsSpec",
    "SmallSortsInOneTaskSpec",
    // Not many queries, but a minute's aggregation over 2 million rows: moved here so that the groups'
    // JVMs end nearer each other (in a run of 2026-12-06 the other group's ended 2 to 5 minutes later).
    "AggregatePushdownSpec",
    // Few queries, but a minute of CREATE and DROP TABLE: here since PlannerDifferentialSpec reads a table half as
    // large, so that the groups end within a minute of each other again.
    "HostileNamesSpec"
  )

  /** The test groups, each in a JVM of its own. */
  def testGroups(tests: Seq[TestDefinition], fork: ForkOptions): Seq[Tests.Group] = {
    val (heavy, rest) = tests.partition(t => QueryHeavySpecs(t.name.split('.').last))
    Seq("specs" -> rest, "query-heavy-specs" -> heavy).collect {
      case (name, group) if group.nonEmpty => Tests.Group(name, group, Tests.SubProcess(fork))
    }
  }

  /** With SPARK_HBASE_TESTS=pure, only the suites that need no HBase run. */
  def pureOnly: Boolean = sys.env.get("SPARK_HBASE_TESTS").contains("pure")

  def testOptions: Seq[TestOption] =
    if (pureOnly) Seq(Tests.Argument(TestFrameworks.ScalaTest, "-l", "org.apache.spark.sql.hbase.RequiresHBase"))
    else Nil

  /** The processes of the embedded test HBase now running, by the marker its launcher puts on their command lines. */
  def processes(root: File): Seq[String] = {
    val marker = s"-Dspark.hbase.local.dir=${dataDir(root).getAbsolutePath}"
    val proc = file("/proc")
    val pids = Option(proc.listFiles()).toSeq.flatten.filter(_.getName.forall(_.isDigit))
    pids.flatMap { p =>
      val cmdline = p / "cmdline"
      val args = scala.util.Try(IO.readBytes(cmdline)).toOption.map(new String(_, "UTF-8").split('\u0000').toSeq)
      args.filter(_.exists(a => a == marker || a.startsWith(marker + "/"))).map(_ => p.getName)
    }
  }
}
