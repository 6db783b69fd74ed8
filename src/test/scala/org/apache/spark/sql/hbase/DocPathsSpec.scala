// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

/**
 * Every file and directory the docs name in code spans exists: a path (`planner/TableScanPlan.scala`,
 * `src/main/scala/…/hbase/planner`, `tests/test_faults.py`) or a source file's bare name
 * (`SkipScanFilter.java`). Scala paths are read from the plugin's source root, Java ones from
 * the server jar's as well.
 */
class DocPathsSpec extends AnyFunSpec with Matchers {
  private val repo: Path = Iterator.iterate(Paths.get(sys.props("user.dir")).toAbsolutePath)(_.getParent)
    .takeWhile(_ != null).find(d => Files.isRegularFile(d.resolve("build.sbt")) && Files.isDirectory(d.resolve("docs")))
    .getOrElse(sys.error("no repository root above the working directory"))

  private val roots = Seq(
    "",
    "src/main/scala/org/apache/spark/sql/hbase/",
    "src/test/scala/org/apache/spark/sql/hbase/",
    "server/src/main/java/org/apache/spark/sql/hbase/server/",
    "server/src/main/java/org/apache/spark/sql/hbase/",
    "hbase-local/src/main/java/org/apache/spark/sql/hbase/local/",
    "python/",
    "benchmarks/"
  )
  private val Extensions = Seq(".scala", ".java", ".py", ".g4", ".md", ".sh", ".json", ".sql", ".yml", ".xml")
  private val Dirs = Seq(
    "src/",
    "server/",
    "python/",
    "tests/",
    "benchmarks/",
    "bin/",
    "docs/",
    "dbt/",
    "conf/",
    "hbase-local/",
    "kerberos-local/",
    "build/",
    "project/"
  )

  private lazy val fileNames: Set[String] = {
    val walk = Files.walk(repo)
    try walk.iterator.asScala.filterNot(p =>
        repo.relativize(p).toString.split('/').exists(s =>
          s.startsWith(".") || s == "target"
        )
      ).map(_.getFileName.toString).toSet
    finally walk.close()
  }

  private def docs: Seq[Path] = {
    val list = Files.list(repo.resolve("docs"))
    try (list.iterator.asScala.filter(_.toString.endsWith(".md")).toSeq :+ repo.resolve("README.md")).sorted
    finally list.close()
  }

  /** The code spans of a page that name a file or directory of the repository. */
  private def namedPaths(text: String): Seq[String] = {
    val spans = "`([^`\\s]+)`".r.findAllMatchIn(text.replaceAll("(?s)```.*?```", "")).map(_.group(1)).toSeq
    spans.map(_.stripSuffix(",").stripSuffix("."))
      .filter(s => !s.contains("://") && !s.contains("*") && !s.contains("=") && !s.contains("<"))
      .filter(s => Extensions.exists(s.endsWith) || Dirs.exists(s.startsWith))
      .distinct
  }

  // A bare name is checked when it is one of our sources: `profiles.yml` or `hbase-env.sh` are a user's files.
  private val SourceExtensions = Seq(".scala", ".java", ".py", ".g4")

  private def exists(name: String): Boolean = {
    val path = name.stripPrefix("./").stripSuffix("/")
    // `…` stands for the package directories: org/apache/spark/sql, or down to hbase.
    val expanded = Seq("org/apache/spark/sql", "org/apache/spark/sql/hbase").map(d => path.replace("…", d)).distinct
    if (!path.contains("/")) !SourceExtensions.exists(path.endsWith) || fileNames(path)
    else expanded.exists(p => roots.exists(root => Files.exists(repo.resolve(root + p))))
  }

  describe("the docs") {
    it("name only files and directories that exist") {
      val missing = for {
        doc <- docs
        name <- namedPaths(Files.readString(doc))
        if !exists(name)
      } yield s"${repo.relativize(doc)}: `$name`"
      missing shouldBe empty
    }

    it("are read for paths in code spans, not in code blocks or addresses") {
      namedPaths("`planner/TableScanPlan.scala` and `a.b` and ```\n`x/y.scala`\n``` and `http://h/x.py`") shouldBe
        Seq("planner/TableScanPlan.scala")
      exists("planner/TableScanPlan.scala") shouldBe true
      exists("planner/NoSuchPlan.scala") shouldBe false
    }
  }
}
