import scala.sys.process._

import sbt._

/**
 * Starts the embedded HBase once for a test run and stops it afterwards, through the project's own
 * launcher (`spark-hbase local`). With HBASE_CONF_DIR set, tests use that HBase instead.
 */
object TestHBase {
  def dataDir(root: File): File = root / "target" / "test-hbase"

  def confDir(root: File): File = sys.env.get("HBASE_CONF_DIR").map(file).getOrElse(dataDir(root) / "conf")

  private def launcher(root: File): String = {
    val cli = root / ".venv" / "bin" / "spark-hbase"
    if (!cli.canExecute) sys.error(s"$cli is missing: run ./bin/setup first, it creates .venv with the launcher")
    cli.getAbsolutePath
  }

  def start(root: File, log: Logger): Unit = {
    IO.delete(dataDir(root))
    log.info(s"Starting the embedded HBase for tests in ${dataDir(root)}")
    // Three region servers, so that every suite meets regions spread over several, as on a cluster.
    val exit =
      Seq(launcher(root), "local", "start", "--data-dir", dataDir(root).getAbsolutePath, "--region-servers", "3").!
    if (exit != 0) sys.error(s"The embedded HBase did not start (exit $exit); see ${dataDir(root) / "logs"}")
  }

  def stop(root: File, log: Logger): Unit = {
    log.info("Stopping the embedded HBase for tests")
    Seq(launcher(root), "local", "stop", "--data-dir", dataDir(root).getAbsolutePath).!
  }

  /** With SPARK_HBASE_TESTS=pure, only the suites that need no HBase run, and none is started. */
  def pureOnly: Boolean = sys.env.get("SPARK_HBASE_TESTS").contains("pure")

  def testOptions(root: File, log: Logger): Seq[TestOption] =
    if (pureOnly) Seq(Tests.Argument(TestFrameworks.ScalaTest, "-l", "org.apache.spark.sql.hbase.RequiresHBase"))
    else if (sys.env.contains("HBASE_CONF_DIR")) Nil
    else Seq(Tests.Setup(() => start(root, log)), Tests.Cleanup(() => stop(root, log)))
}
