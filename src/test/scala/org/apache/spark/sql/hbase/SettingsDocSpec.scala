// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.file.{Files, Paths}

import org.apache.spark.internal.config.ConfigEntry
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * docs/settings.md's table of the plugin's settings is HBaseSQLConf's entries: their keys, defaults
 * and docs, in key order. With SPARK_HBASE_WRITE_DOCS=1 this spec writes the table instead of
 * comparing it.
 */
class SettingsDocSpec extends AnyFunSpec with Matchers {
  private val page = Paths.get("docs", "settings.md")
  private val Begin = "<!-- The table below is generated from HBaseSQLConf by SettingsDocSpec. -->"
  private val End = "<!-- End of the generated table. -->"

  /** Every setting HBaseSQLConf declares, read off the object so that a new one cannot be missed. */
  private def entries: Seq[ConfigEntry[_]] =
    HBaseSQLConf.getClass.getMethods.toSeq
      .filter(m => m.getParameterCount == 0 && classOf[ConfigEntry[_]].isAssignableFrom(m.getReturnType))
      .map(_.invoke(HBaseSQLConf).asInstanceOf[ConfigEntry[_]])
      .distinctBy(_.key)
      .sortBy(_.key)

  private def cell(text: String): String = text.replace("|", "\\|").replace("\n", " ")

  private def table: String =
    (Seq("| setting | default | meaning |", "| --- | --- | --- |") ++ entries.map { e =>
      s"| `${e.key}` | `${cell(e.defaultValueString)}` | ${cell(e.doc)} |"
    }).mkString("\n")

  describe("docs/settings.md") {
    it("lists every setting of HBaseSQLConf with its default and doc, as generated from it") {
      val text = Files.readString(page)
      val (begin, end) = (text.indexOf(Begin), text.indexOf(End))
      withClue(s"$page has no generated table between '$Begin' and '$End': ")(begin should be >= 0)
      end should be > begin
      val generated = s"$Begin\n$table\n$End"
      if (sys.env.get("SPARK_HBASE_WRITE_DOCS").contains("1"))
        Files.writeString(page, text.substring(0, begin) + generated + text.substring(end + End.length))
      else withClue(
        s"$page differs from HBaseSQLConf; write it with SPARK_HBASE_WRITE_DOCS=1 ./build/sbt \"testOnly *SettingsDocSpec\": "
      )(text.substring(begin, end + End.length) shouldBe generated)
    }

    it("names no spark.sql.hbase setting that HBaseSQLConf does not declare") {
      val keys = entries.map(_.key).toSet
      val named = "`(spark\\.sql\\.hbase\\.[A-Za-z0-9.]+)`".r.findAllMatchIn(Files.readString(page)).map(_.group(1))
      named.filterNot(keys).toSeq shouldBe empty
    }
  }
}
