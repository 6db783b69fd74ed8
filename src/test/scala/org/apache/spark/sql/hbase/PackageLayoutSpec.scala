// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

/**
 * The layout shows the pipeline: each package of the plugin uses only packages below it, in the
 * order of the layout table in docs/architecture.md (bottom first), so the packages form no cycle.
 * A package uses another when one of its main sources imports from it (one name, `{...}` names or
 * `_`) or names something of it fully qualified in code; comments do not count. `execution` and
 * `execution.load` are two packages. The root package, which holds only the extension that wires
 * every package into Spark, is `(root)`, at the top.
 */
class PackageLayoutSpec extends AnyFunSpec with Matchers {
  import PackageLayoutSpec._

  private lazy val graph = PackageGraph.of(mainSources)

  describe("the packages under org.apache.spark.sql.hbase") {
    it("are the packages of the layout table in docs/architecture.md, no more and no fewer") {
      graph.packages shouldBe layout.toSet
    }

    it("are each declared in one package clause, so a file sees another package's names only through imports") {
      mainSources.filter { case (_, text) =>
        PackageGraph.PackageClause.findAllMatchIn(PackageGraph.withoutComments(text)).size != 1
      }.keys shouldBe empty
    }

    it("each use only packages below them in the layout, root included, so they form no cycle") {
      val rank = layout.zipWithIndex.toMap
      val upward = graph.files.keys.toSeq.filter { case (from, to) => rank(to) >= rank(from) }.sorted
      withClue(upward.map { case (f, t) =>
        s"$f uses $t, which the layout puts above it: ${graph.files((f, t)).toSeq.sorted.mkString(", ")}"
      }.mkString("\n"))(
        upward shouldBe empty
      )
      withClue(graph.cycle.fold("")(PackageGraph.describe(graph, _))) {
        graph.cycle shouldBe empty
      }
    }

    it("keep the planner pure: it reads a table's live facts through its TableFacts, which facts implements") {
      graph.uses("planner", "facts") shouldBe false
      graph.uses("planner", "execution") shouldBe false
      graph.uses("facts", "planner") shouldBe true
    }
  }

  describe("how uses are found") {
    def graphOf(sources: (String, String)*) = PackageGraph.of(sources.toMap)

    it("counts one name, grouped names over several lines, `_`, and a fully qualified name in code") {
      val g = graphOf(
        "a/A.scala" -> "package org.apache.spark.sql.hbase.a\n\nimport org.apache.spark.sql.hbase.b.B\n",
        "b/B.scala" -> "package org.apache.spark.sql.hbase.b\n\nimport org.apache.spark.sql.hbase.c.{\n  C, D\n}\n",
        "c/C.scala" -> "package org.apache.spark.sql.hbase.c\n\nimport org.apache.spark.sql.hbase.d.e._\n",
        "d/e/E.scala" ->
          "package org.apache.spark.sql.hbase.d.e\n\nobject E { val f = org.apache.spark.sql.hbase.f.F }\n",
        "f/F.scala" -> "package org.apache.spark.sql.hbase.f\n\nobject F\n"
      )
      g.edges shouldBe Map("a" -> Set("b"), "b" -> Set("c"), "c" -> Set("d.e"), "d.e" -> Set("f"))
      g.cycle shouldBe empty
    }

    it("ignores comments and a package's own names, counts the root package, and keeps strings") {
      val g = graphOf(
        "a/A.scala" ->
          ("package org.apache.spark.sql.hbase.a\n\nimport org.apache.spark.sql.hbase.Shared\n" +
            "import org.apache.spark.sql.hbase.a.Other\n/** See [[org.apache.spark.sql.hbase.b.B]]. */\n" +
            "object A { val url = \"file://x\" // org.apache.spark.sql.hbase.b.B\n" +
            "  val name = \"org.apache.spark.sql.hbase.c.C\" }\n"),
        "b/B.scala" -> "package org.apache.spark.sql.hbase.b\n\nimport org.apache.spark.sql.hbase.a.A\n",
        "c/C.scala" -> "package org.apache.spark.sql.hbase.c\n",
        "Root.scala" -> "package org.apache.spark.sql.hbase\n\nimport org.apache.spark.sql.hbase.a.A\n"
      )
      g.edges shouldBe
        Map("a" -> Set("c", PackageGraph.RootPackage), "b" -> Set("a"), PackageGraph.RootPackage -> Set("a"))
    }

    it("finds the cycle one import closes, with the files that make it") {
      val g = graphOf(
        "a/A.scala" -> "package org.apache.spark.sql.hbase.a\n\nimport org.apache.spark.sql.hbase.b.B\n",
        "b/B.scala" -> "package org.apache.spark.sql.hbase.b\n\nimport org.apache.spark.sql.hbase.c.C\n",
        "c/C.scala" -> "package org.apache.spark.sql.hbase.c\n\nimport org.apache.spark.sql.hbase.{a, Shared}\n",
        "Shared.scala" -> "package org.apache.spark.sql.hbase\n\nobject Shared\n"
      )
      g.cycle.map(_.toSet) shouldBe Some(Set("a", "b", "c"))
      g.uses("c", PackageGraph.RootPackage) shouldBe true
      val said = PackageGraph.describe(g, g.cycle.get)
      Seq("a -> b: a/A.scala", "b -> c: b/B.scala", "c -> a: c/C.scala").foreach(said should include(_))
    }
  }
}

object PackageLayoutSpec {
  private val Root = "org.apache.spark.sql.hbase"
  private val SourceDir = Paths.get("src", "main", "scala", "org", "apache", "spark", "sql", "hbase")

  /** The main Scala sources, by path under the root package's directory. */
  def mainSources: Map[String, String] = {
    val start = Paths.get(sys.props("user.dir")).toAbsolutePath
    val dir = Iterator.iterate(start)(_.getParent).takeWhile(_ != null).map(_.resolve(SourceDir))
      .find(Files.isDirectory(_)).getOrElse(sys.error(s"no $SourceDir above $start"))
    val files = Files.walk(dir)
    try files.iterator.asScala.filter(_.toString.endsWith(".scala")).map { path =>
        dir.relativize(path).toString.replace('\\', '/') -> read(path)
      }.toMap
    finally files.close()
  }

  private def read(path: Path) = new String(Files.readAllBytes(path), StandardCharsets.UTF_8)

  /** The packages, bottom first, as the layout table of docs/architecture.md lists them: rows `| \`name\` | ... |`. */
  def layout: Seq[String] = {
    val start = Paths.get(sys.props("user.dir")).toAbsolutePath
    val doc = Iterator.iterate(start)(_.getParent).takeWhile(_ != null).map(_.resolve("docs/architecture.md"))
      .find(Files.isRegularFile(_)).getOrElse(sys.error(s"no docs/architecture.md above $start"))
    val table = read(doc).split("<!-- layout -->")
    require(table.length == 3, s"$doc has no table between two '<!-- layout -->' lines")
    """(?m)^\| `([^`]+)` \|""".r.findAllMatchIn(table(1)).map(_.group(1)).toSeq
  }

  /** Which package uses which (`files`: the files through which it does); packages are named relative to the root package. */
  final case class PackageGraph(packages: Set[String], files: Map[(String, String), Set[String]]) {
    def edges: Map[String, Set[String]] = files.keys.groupMap(_._1)(_._2).map { case (k, v) => k -> v.toSet }

    def uses(from: String, to: String): Boolean = files.contains(from -> to)

    /** Some cycle, as the packages along it (the first one used by the last), or None. */
    def cycle: Option[Seq[String]] = {
      val done = scala.collection.mutable.Set.empty[String]
      def visit(path: Vector[String]): Option[Seq[String]] = {
        val at = path.last
        edges.getOrElse(at, Set.empty).toSeq.sorted.iterator.map { next =>
          val back = path.indexOf(next)
          if (back >= 0) Some(path.drop(back))
          else if (done(next)) None
          else visit(path :+ next)
        }.collectFirst { case Some(c) => c }.orElse { done += at; None }
      }
      packages.toSeq.sorted.iterator.filterNot(done).map(p => visit(Vector(p))).collectFirst { case Some(c) => c }
    }
  }

  object PackageGraph {
    val PackageClause = """(?m)^\s*package\s+([\w.]+)""".r
    val RootPackage = "(root)"
    private val Qualified = (java.util.regex.Pattern.quote(Root) + """\.((?:[a-z]\w*\.?)+)""").r
    // A name of the root package itself: org.apache.spark.sql.hbase.HBaseSparkSessionExtension.
    private val QualifiedInRoot = (java.util.regex.Pattern.quote(Root) + """\.[A-Z]""").r
    private val GroupedRoot = ("""import\s+""" + java.util.regex.Pattern.quote(Root) + """\.\{([^}]*)\}""").r

    /** `sources`: the text of each source file, by its path. */
    def of(sources: Map[String, String]): PackageGraph = {
      val code = sources.map { case (path, text) => path -> withoutComments(text) }
      val packageOf = code.map { case (path, text) => path -> packageName(text) }
      val packages = packageOf.values.flatten.toSet
      def known(segments: Seq[String]): Option[String] =
        segments.indices.reverse.map(i => segments.take(i + 1).mkString(".")).find(packages)
      val uses = for {
        (path, text) <- code.toSeq
        from <- packageOf(path).toSeq
        to <- Qualified.findAllMatchIn(text).flatMap(m => known(m.group(1).split('.').toSeq)) ++
          GroupedRoot.findAllMatchIn(text).flatMap(_.group(1).split(',').map(_.split("=>").head.trim)).map { name =>
            if (name.headOption.exists(_.isUpper)) RootPackage else name
          }.filter(packages) ++
          QualifiedInRoot.findAllMatchIn(text).map(_ => RootPackage)
        if to != from
      } yield (from, to) -> path
      PackageGraph(packages, uses.groupMap(_._1)(_._2).map { case (k, v) => k -> v.toSet })
    }

    /** The package of a file, relative to the root package (itself `(root)`); None for files outside it. */
    private def packageName(code: String): Option[String] = {
      val full = PackageClause.findAllMatchIn(code).map(_.group(1)).mkString(".")
      if (full == Root) Some(RootPackage)
      else if (full.startsWith(Root + ".")) Some(full.stripPrefix(Root + "."))
      else None
    }

    /** The cycle, each use along it with the files that make it. */
    def describe(graph: PackageGraph, cycle: Seq[String]): String = (cycle :+ cycle.head).sliding(2).map {
      case Seq(from, to) =>
        s"  $from -> $to: ${graph.files((from, to)).toSeq.sorted.mkString(", ")}"
    }.mkString(s"the packages ${cycle.mkString(" -> ")} -> ${cycle.head} form a cycle:\n", "\n", "\n")

    /** The code with its comments blanked out; strings and character literals stay as they are. */
    def withoutComments(text: String): String = {
      val out = new StringBuilder(text.length)
      var i = 0
      def at(s: String) = text.startsWith(s, i)
      while (i < text.length) {
        if (at("//")) {
          while (i < text.length && text(i) != '\n') i += 1
        } else if (at("/*")) {
          var depth = 0
          while (i < text.length && (depth > 0 || at("/*"))) {
            if (at("/*")) { depth += 1; i += 2 }
            else if (at("*/")) { depth -= 1; i += 2 }
            else { if (text(i) == '\n') out += '\n'; i += 1 }
          }
        } else if (at("\"\"\"")) {
          val end = text.indexOf("\"\"\"", i + 3)
          val stop = if (end < 0) text.length else end + 3
          out ++= text.substring(i, stop); i = stop
        } else if (text(i) == '"' || (text(i) == '\'' && i + 2 < text.length && text(i + 2) == '\'')) {
          val quote = text(i)
          out += quote; i += 1
          while (i < text.length && text(i) != quote && text(i) != '\n') {
            if (text(i) == '\\' && i + 1 < text.length) { out += text(i); i += 1 }
            out += text(i); i += 1
          }
          if (i < text.length && text(i) == quote) { out += quote; i += 1 }
        } else {
          out += text(i); i += 1
        }
      }
      out.toString
    }
  }
}
