// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.parser

import java.util.Locale
import java.util.regex.{Matcher, Pattern}

/**
 * Phoenix's spellings of what Spark's grammar says otherwise, in Spark's: the index hint
 * `/*+ INDEX(t i1 i2) */` as `INDEX(t, i1, i2)`, and `CREATE INDEX i ON t (c) INCLUDE (a, b)` as
 * `CREATE INDEX i ON TABLE t USING global (c) OPTIONS (include 'a, b')`. Each gives None when
 * the statement has no such spelling; the parser tries them only on a statement Spark refuses.
 */
object PhoenixSpellings {
  private val HintComment = Pattern.compile("/\\*\\+(.*?)\\*/", Pattern.DOTALL)
  private val SpacedIndexHint =
    Pattern.compile("(?i)\\b(INDEX)\\s*\\(\\s*([\\w`.]+(?:\\s+[\\w`.]+)+)\\s*\\)")

  private val Name = "(`[^`]+`|[\\w.]+)"
  private val CreateIndexWithInclude = Pattern.compile(
    "(?is)^\\s*CREATE\\s+INDEX\\s+(IF\\s+NOT\\s+EXISTS\\s+)?" + Name + "\\s+ON\\s+(?:TABLE\\s+)?" + Name +
      "\\s*(?:USING\\s+(\\w+)\\s*)?\\(([^()]*)\\)\\s*INCLUDE\\s*\\(([^()]*)\\)\\s*(?:OPTIONS\\s*\\((.*)\\))?\\s*;?\\s*$"
  )

  /** The statement with its INDEX hints' parameters separated by commas. */
  def hintsWithCommas(sqlText: String): Option[String] = {
    val out = new StringBuffer
    val comments = HintComment.matcher(sqlText)
    var changed = false
    while (comments.find()) {
      val hints = SpacedIndexHint.matcher(comments.group(1))
      val body = new StringBuffer
      while (hints.find()) {
        changed = true
        val parameters = hints.group(2).trim.split("\\s+").mkString(", ")
        hints.appendReplacement(body, Matcher.quoteReplacement(s"${hints.group(1)}($parameters)"))
      }
      hints.appendTail(body)
      comments.appendReplacement(out, Matcher.quoteReplacement(s"/*+$body*/"))
    }
    comments.appendTail(out)
    if (changed) Some(out.toString) else None
  }

  /** CREATE INDEX with Phoenix's INCLUDE clause, which makes a covered global index, as OPTIONS (include ...). */
  def includeAsOption(sqlText: String): Option[String] = {
    val m = CreateIndexWithInclude.matcher(sqlText)
    if (!m.matches()) None
    else {
      val ifNotExists = Option(m.group(1)).fold("")(_ => "IF NOT EXISTS ")
      val using = Option(m.group(4)).getOrElse("global")
      val included = m.group(6).split(",").map(_.trim.stripPrefix("`").stripSuffix("`")).filter(_.nonEmpty)
      val options = (s"include '${included.mkString(", ").replace("'", "\\'")}'" +: Option(m.group(7)).toSeq)
        .mkString(", ")
      Some(
        s"CREATE INDEX $ifNotExists${m.group(2)} ON TABLE ${m.group(3)} USING ${using.toLowerCase(Locale.ROOT)} " +
          s"(${m.group(5)}) OPTIONS ($options)"
      )
    }
  }
}
