// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import sbt._
import sbt.Keys._

/** Generates Java sources from the .g4 grammars under src/main/antlr4, as Spark's build does. */
object Antlr4 {
  val antlr4Sources = settingKey[File]("Directory holding .g4 grammars")
  val antlr4Generate = taskKey[Seq[File]]("Generate the ANTLR 4 parser")

  lazy val settings: Seq[Setting[_]] = Seq(
    antlr4Sources := (Compile / sourceDirectory).value / "antlr4",
    antlr4Generate := {
      val grammarRoot = antlr4Sources.value
      val outDir = (Compile / sourceManaged).value / "antlr4"
      val grammars = (grammarRoot ** "*.g4").get
      val cached = FileFunction.cached(streams.value.cacheDirectory / "antlr4", FilesInfo.hash) { in =>
        IO.delete(outDir)
        in.toSeq.foreach { g4 =>
          val pkgDir = IO.relativize(grammarRoot, g4.getParentFile).getOrElse("")
          val pkg = pkgDir.replace('/', '.')
          val args = Array(
            "-o",
            (outDir / pkgDir).getPath,
            "-Xexact-output-dir",
            "-package",
            pkg,
            "-visitor",
            "-no-listener",
            g4.getPath
          )
          val tool = new org.antlr.v4.Tool(args)
          tool.processGrammarsOnCommandLine()
          if (tool.getNumErrors > 0) sys.error(s"ANTLR failed on $g4")
        }
        (outDir ** "*.java").get.toSet
      }
      cached(grammars.toSet).toSeq
    },
    Compile / sourceGenerators += antlr4Generate.taskValue
  )
}
