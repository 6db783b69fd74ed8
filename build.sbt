import sbtassembly.AssemblyPlugin.autoImport._

ThisBuild / organization := "io.github.sparkhbasesql"
ThisBuild / organizationName := "spark-hbase-sql"
ThisBuild / homepage := Some(url("https://github.com/spark-hbase-sql/spark-hbase-sql"))
ThisBuild / licenses := List("Apache-2.0" -> url("https://www.apache.org/licenses/LICENSE-2.0.txt"))
ThisBuild / scmInfo := Some(ScmInfo(
  url("https://github.com/spark-hbase-sql/spark-hbase-sql"),
  "scm:git:https://github.com/spark-hbase-sql/spark-hbase-sql.git"
))
ThisBuild / developers := List(
  Developer(
    "spark-hbase-sql",
    "The spark-hbase-sql developers",
    "dev@spark-hbase-sql.invalid",
    url("https://github.com/spark-hbase-sql")
  )
)
ThisBuild / description :=
  "Spark SQL over Apache HBase: a Catalyst extension with key-range planning and server-side skip scans and aggregates"
ThisBuild / versionScheme := Some("early-semver")
// Dependencies resolve through project/repositories; scalafmt fetches its own version from these.
ThisBuild / resolvers += Resolver.mavenCentral
// The one place the version is written; Python reads the same file.
ThisBuild / version := IO.read(file("python/pyspark_hbase/VERSION")).trim
ThisBuild / scalaVersion := "2.13.18"
ThisBuild / javacOptions ++= Seq("--release", "17")
ThisBuild / scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-unchecked", "-Werror")

val hbaseVersion = "2.6.4-hadoop3"
val sparkVersion = "4.3.0"
val scalatestVersion = "3.2.19"
// The Hadoop of HBase 2.6.4-hadoop3, for the test fixtures that run Hadoop services.
val hadoopVersion = "3.4.2"

// Spark 4.3.0 is "provided". Its jars come from the pyspark 4.3.0 distribution in .venv
// (the same build as Maven's), or from SPARK_JARS_DIR; otherwise from Maven Central.
lazy val sparkJarsDir: Option[File] = {
  val fromEnv = sys.env.get("SPARK_JARS_DIR").map(file)
  def fromVenv = (file(".venv") / "lib" * "python*" / "site-packages" / "pyspark" / "jars").get.headOption
  fromEnv.orElse(fromVenv).filter(_.isDirectory).map(_.getAbsoluteFile)
}

lazy val sparkProvided: Seq[Setting[_]] = sparkJarsDir match {
  case Some(dir) => Seq(
      Compile / unmanagedJars ++= (dir * "*.jar").classpath,
      Test / unmanagedJars ++= (dir * "*.jar").classpath
    )
  case None => Seq(libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.apache.spark" %% "spark-hive-thriftserver" % sparkVersion % Provided,
      "org.apache.spark" %% "spark-connect" % sparkVersion % Provided
    ))
}

// Region servers need these flags on Java 17, and so does Spark.
lazy val java17Opens = Seq(
  "java.lang",
  "java.lang.invoke",
  "java.lang.reflect",
  "java.io",
  "java.net",
  "java.nio",
  "java.util",
  "java.util.concurrent",
  "java.util.concurrent.atomic",
  "sun.nio.ch",
  "sun.nio.cs",
  "sun.security.action",
  "sun.util.calendar",
  "jdk.internal.misc"
).map(p => s"--add-opens=java.base/$p=ALL-UNNAMED") ++ Seq(
  "--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED",
  "-Dio.netty.tryReflectionSetAccessible=true",
  "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true"
)

/** Server-side classes: HBase only, no Scala, so the jar can sit on a region server. */
lazy val server = (project in file("server"))
  .settings(
    name := "spark-hbase-sql-server",
    crossPaths := false,
    exportJars := true,
    autoScalaLibrary := false,
    // Its Javadoc is published; the methods are documented where it helps, not every parameter.
    Compile / doc / javacOptions ++= Seq("-Xdoclint:all,-missing"),
    libraryDependencies ++= Seq(
      "org.apache.hbase" % "hbase-client" % hbaseVersion % Provided,
      // RegionObserver and RegionScanner, for the aggregation coprocessor.
      "org.apache.hbase" % "hbase-server" % hbaseVersion % Provided
    )
  )

lazy val writeClasspath =
  taskKey[File]("Write the embedded HBase classpath to hbase-local/target/hbase-local.classpath")
lazy val writeLock =
  taskKey[File]("Write the embedded HBase's Maven jars, pinned, to hbase-local/target/hbase-local.lock")

/** Classpath of the embedded standalone HBase: Maven Central jars plus our server jar. */
lazy val hbaseLocal = (project in file("hbase-local"))
  .dependsOn(server)
  .settings(
    name := "spark-hbase-sql-hbase-local",
    crossPaths := false,
    // Its classes as a jar on the classpath written below: Java's class data sharing archives
    // classes from jars only, and refuses a classpath with a non-empty directory before its last jar.
    exportJars := true,
    autoScalaLibrary := false,
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.apache.hbase" % "hbase-server" % hbaseVersion,
      "org.apache.hbase" % "hbase-zookeeper" % hbaseVersion,
      // As in HBase's own distribution: ImportTsv and a local MapReduce runner (the load benchmark compares with them).
      // (No -hadoop3 build of 2.6.4 on Maven Central: the plain one, without its Hadoop 2 dependencies.)
      ("org.apache.hbase" % "hbase-mapreduce" % hbaseVersion.stripSuffix("-hadoop3")).intransitive(),
      "org.apache.hadoop" % "hadoop-mapreduce-client-common" % hadoopVersion,
      "org.apache.logging.log4j" % "log4j-slf4j-impl" % "2.25.2",
      "org.apache.logging.log4j" % "log4j-core" % "2.25.2",
      "org.apache.logging.log4j" % "log4j-1.2-api" % "2.25.2",
      "junit" % "junit" % "4.13.2" % Test,
      "com.github.sbt" % "junit-interface" % "0.13.3" % Test
    ),
    excludeDependencies ++= Seq(ExclusionRule("org.slf4j", "slf4j-reload4j"), ExclusionRule("ch.qos.reload4j")),
    writeClasspath := writeClasspathTo("hbase-local.classpath").value,
    writeLock := {
      // Every Maven jar of the classpath above, pinned with the SHA-256 of the file the build
      // resolved, for a wheel to fetch without sbt and check; not the platform-specific native
      // netty jars (classifiers), which netty does without.
      val ours = organization.value
      val pinned = (Runtime / fullClasspath).value
        .filter(_.get(artifact.key).forall(_.classifier.isEmpty))
        .flatMap(jar => jar.get(moduleID.key).map(m => (m, jar.data)))
        .filter { case (m, _) => m.organization != ours }
        .map { case (m, file) =>
          val sha256 = java.security.MessageDigest.getInstance("SHA-256").digest(IO.readBytes(file))
          s"${m.organization}:${m.name}:${m.revision}@sha256:${sha256.map("%02x".format(_)).mkString}"
        }
        .distinct.sorted
      val out = target.value / "hbase-local.lock"
      IO.write(out, pinned.mkString("", "\n", "\n"))
      out
    }
  )

def writeClasspathTo(fileName: String) = Def.task {
  val cp = (Runtime / fullClasspath).value.files.filterNot(f => sparkJarsDir.contains(f.getParentFile)).map(
    _.getAbsolutePath
  )
  val out = target.value / fileName
  IO.write(out, cp.mkString(java.io.File.pathSeparator))
  out
}

/**
 * Test fixtures for a Kerberos-secured HBase, in JVMs of their own: a KDC (Hadoop's MiniKdc) and a
 * one-node YARN whose executors get HBase delegation tokens. Kept off the HBase classpath.
 */
lazy val kerberosLocal = (project in file("kerberos-local"))
  .settings(
    name := "spark-hbase-sql-kerberos-local",
    crossPaths := false,
    exportJars := true,
    autoScalaLibrary := false,
    publish / skip := true,
    libraryDependencies ++= Seq(
      "org.apache.hadoop" % "hadoop-minikdc" % hadoopVersion,
      "org.apache.hadoop" % "hadoop-yarn-server-tests" % hadoopVersion classifier "tests",
      "org.apache.hadoop" % "hadoop-yarn-server-resourcemanager" % hadoopVersion,
      "org.apache.hadoop" % "hadoop-yarn-server-nodemanager" % hadoopVersion,
      "org.apache.hadoop" % "hadoop-common" % hadoopVersion classifier "tests",
      "junit" % "junit" % "4.13.2",
      "org.apache.logging.log4j" % "log4j-slf4j-impl" % "2.25.2",
      "org.apache.logging.log4j" % "log4j-core" % "2.25.2",
      "org.apache.logging.log4j" % "log4j-1.2-api" % "2.25.2"
    ),
    excludeDependencies ++= Seq(ExclusionRule("org.slf4j", "slf4j-reload4j"), ExclusionRule("ch.qos.reload4j")),
    writeClasspath := writeClasspathTo("kerberos-local.classpath").value
  )

lazy val forgetStoppedTestHBase =
  taskKey[Unit]("Deletes the data of the embedded test HBase (target/test-hbase); fails if it runs")
lazy val checkNoTestHBaseStarted =
  taskKey[Unit]("Fails if the embedded test HBase runs or ran since forgetStoppedTestHBase")

// The test groups' JVMs run at the same time (sbt's default runs one forked group at a time).
Global / concurrentRestrictions := Seq(
  Tags.limitAll(math.max(java.lang.Runtime.getRuntime.availableProcessors, 2)),
  Tags.limit(Tags.ForkedTestGroup, 2),
  Tags.exclusiveGroup(Tags.Clean)
)

// `sbt pureLoopCheck`: a pure spec run alone starts no HBase process (./bin/test runs it first). An
// HBase started and stopped by the run would leave its data directory behind, so that is checked too.
addCommandAlias(
  "pureLoopCheck",
  "; forgetStoppedTestHBase ; testOnly org.apache.spark.sql.hbase.planner.KeyRangePlannerSpec ; checkNoTestHBaseStarted"
)

/** The Spark plugin: one jar with the shaded HBase client inside, Spark and Scala left out. */
lazy val core = (project in file("."))
  .dependsOn(server)
  .aggregate(server, hbaseLocal, kerberosLocal)
  .settings(Antlr4.settings)
  .settings(sparkProvided)
  .settings(
    name := "spark-hbase-sql",
    libraryDependencies ++= Seq(
      ("org.apache.hbase" % "hbase-shaded-mapreduce" % hbaseVersion).intransitive(),
      "io.opentelemetry" % "opentelemetry-api" % "1.49.0",
      "io.opentelemetry" % "opentelemetry-context" % "1.49.0",
      "io.opentelemetry.semconv" % "opentelemetry-semconv" % "1.29.0-alpha",
      "org.scalatest" %% "scalatest" % scalatestVersion % Test,
      "org.scalatestplus" %% "scalacheck-1-18" % s"$scalatestVersion.0" % Test,
      // The server jar's JUnit tests, beside the specs that compare its code with Spark's (src/test/java/…/server).
      "junit" % "junit" % "4.13.2" % Test,
      "com.github.sbt" % "junit-interface" % "0.13.3" % Test
    ),
    Test / fork := true,
    // Two test JVMs side by side (see TestHBase.testGroups); one spec after another in each.
    Test / parallelExecution := true,
    Test / testGrouping := TestHBase.testGroups((Test / definedTests).value, (Test / forkOptions).value),
    Test / javaOptions ++= java17Opens ++ Seq(
      "-Xmx3g",
      // C1 alone: a test run is many short queries, whose code C2 compiles again and again for
      // little gain; PlannerDifferentialSpec took 8% less CPU in the same time.
      "-XX:TieredStopAtLevel=1",
      // C1 alone reserves 48 MB for compiled code, which a differential spec's generated classes
      // fill within a minute: the JVM then stops compiling for the rest of the run. Two fresh-clone
      // ./bin/test runs the same day: the Scala tests took 1,295 s with 240 MB, 1,449 s without.
      "-XX:ReservedCodeCacheSize=240m",
      // The serial collector: on two cores G1's concurrent threads compete with the tests. Over the
      // four differential specs and LargeInputsSpec, sbt and the test JVM took 380 CPU s rather than
      // 416 (same machine, one after the other), in 374 s rather than 388.
      "-XX:+UseSerialGC",
      "-Dspark.ui.enabled=false",
      s"-Dlog4j2.configurationFile=${(baseDirectory.value / "conf" / "log4j2.properties").getAbsolutePath}"
    ),
    Test / envVars ++= sys.env.filter(_._1.startsWith("SPARK_HBASE")) +
      ("HBASE_CONF_DIR" -> TestHBase.confDir(baseDirectory.value).getAbsolutePath),
    // The test JVM starts the embedded HBase when the first suite that needs it runs (see
    // project/TestHBase.scala), with our server jar's classes on its classpath, written here.
    Test / javaOptions ++= TestHBase.javaOptions(baseDirectory.value),
    Test / testOptions ++= Def.taskDyn {
      if (TestHBase.pureOnly) Def.task(TestHBase.testOptions)
      else Def.task {
        (hbaseLocal / writeClasspath).value
        TestHBase.testOptions
      }
    }.value,
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"),
    forgetStoppedTestHBase := {
      val running = TestHBase.processes(baseDirectory.value)
      if (running.nonEmpty)
        sys.error(s"The embedded test HBase runs (pids ${running.mkString(", ")}): stop it " +
          "(.venv/bin/spark-hbase local stop --data-dir target/test-hbase) to check that pure specs start none")
      IO.delete(TestHBase.dataDir(baseDirectory.value))
    },
    checkNoTestHBaseStarted := {
      val dir = TestHBase.dataDir(baseDirectory.value)
      val running = TestHBase.processes(baseDirectory.value)
      if (running.nonEmpty || dir.exists)
        sys.error(
          s"The pure specs started the embedded HBase: ${if (running.nonEmpty) s"pids ${running.mkString(", ")} run"
            else s"$dir was made"}"
        )
      streams.value.log.info(s"The pure specs started no HBase: no process runs and $dir was not made")
    },
    // Scaladoc's own warnings (a link it cannot resolve) are no reason to stop a release.
    Compile / doc / scalacOptions ~= (_.filterNot(_ == "-Werror")),
    assembly / aggregate := false,
    // Published as one jar, the assembly, with no dependencies for --packages to fetch: the shaded
    // HBase client and the server classes are inside, and Spark and Scala are the cluster's.
    Compile / packageBin := assembly.value,
    pomPostProcess := { node =>
      import scala.xml.transform.{RewriteRule, RuleTransformer}
      new RuleTransformer(new RewriteRule {
        override def transform(n: scala.xml.Node): Seq[scala.xml.Node] =
          if (n.label == "dependencies") Seq.empty else n
      }).transform(node).head
    },
    assembly / assemblyJarName := s"spark-hbase-sql-assembly-${version.value}.jar",
    assembly / assemblyOption ~= (_.withIncludeScala(false)),
    assembly / assemblyExcludedJars := {
      val spark = sparkJarsDir.map(d => (d * "*.jar").get.map(_.getName).toSet).getOrElse(Set.empty)
      (assembly / fullClasspath).value.filter(a => spark.contains(a.data.getName))
    },
    assembly / assemblyMergeStrategy := {
      case PathList("META-INF", "MANIFEST.MF") => MergeStrategy.discard
      case PathList("META-INF", "services", _*) => MergeStrategy.filterDistinctLines
      case PathList("META-INF", xs @ _*)
          if xs.lastOption.exists(n => n.endsWith(".SF") || n.endsWith(".DSA") || n.endsWith(".RSA")) =>
        MergeStrategy.discard
      case PathList("module-info.class") => MergeStrategy.discard
      case PathList("META-INF", "versions", _, "module-info.class") => MergeStrategy.discard
      case x => MergeStrategy.first
    }
  )
