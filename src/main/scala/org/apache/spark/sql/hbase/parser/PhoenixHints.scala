// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.parser

import java.util.regex.{Matcher, Pattern}

/**
 * Phoenix's spelling of the index hint, `/*+ INDEX(t i1 i2) */`, in Spark's: `INDEX(t, i1, i2)`.
 * Only the parameters of INDEX hints inside hint comments change.
 */
object PhoenixHints {
  private val HintComment = Pattern.compile("/\\*\\+(.*?)\\*/", Pattern.DOTALL)
  private val SpacedIndexHint =
    Pattern.compile("(?i)\\b(INDEX)\\s*\\(\\s*([\\w`.]+(?:\\s+[\\w`.]+)+)\\s*\\)")

  /** The statement with its INDEX hints' parameters separated by commas; None when none needed it. */
  def withCommas(sqlText: String): Option[String] = {
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
}
