// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder

import org.apache.spark.sql.hbase.common.Utf8

/**
 * The names HBase refuses, told before anything is created: HBase's own checks decide, and the
 * message names the offending character where there is one. SQL names (tables, columns) may be
 * anything Spark can quote; qualifiers are any bytes but the empty one, which marks rows.
 */
object HBaseNames {

  /** What is wrong with `table` as an HBase table name, if anything. */
  def tableProblem(table: HBaseTableName): Option[String] = {
    val namespace = refusal(TableName.isLegalNamespaceName(Utf8.bytes(table.namespace))).map { hbase =>
      s"'${table.namespace}' is not a legal HBase namespace: " +
        because(
          table.namespace,
          cp => Character.isLetterOrDigit(cp) || cp == '_',
          "HBase allows only letters, digits and '_'",
          hbase
        )
    }
    namespace.orElse(refusal(TableName.isLegalTableQualifierName(Utf8.bytes(table.name))).map { hbase =>
      val legal = (cp: Int) => Character.isAlphabetic(cp) || Character.isDigit(cp) || "_-.".contains(cp.toChar)
      val why =
        if (table.name.startsWith("-") || table.name.startsWith(".")) "it must not start with '-' or '.'"
        else because(table.name, legal, "HBase allows only letters, digits, '_', '-' and '.'", hbase)
      s"'${table.name}' is not a legal HBase table name: $why"
    })
  }

  /** What is wrong with `family` as a column family name, if anything. */
  def familyProblem(family: String): Option[String] =
    refusal(ColumnFamilyDescriptorBuilder.isLegalColumnFamilyName(Utf8.bytes(family))).map { hbase =>
      val why =
        if (family.isEmpty) "it is empty"
        else if (family.startsWith(".")) "it must not start with '.'"
        else {
          val legal = (cp: Int) => !Character.isISOControl(cp) && !":\\/".contains(cp.toChar)
          because(family, legal, "HBase forbids ':', '\\', '/' and control characters", hbase)
        }
      s"'$family' is not a legal HBase column family name: $why"
    }

  /** What is wrong with `qualifier` as a column qualifier, if anything. */
  def qualifierProblem(qualifier: String): Option[String] =
    if (qualifier.nonEmpty) None
    else Some("the empty column qualifier is the row marker cell's; map a column to a named qualifier")

  private def refusal(check: => Any): Option[String] =
    try { check; None }
    catch { case e: IllegalArgumentException => Some(Option(e.getMessage).getOrElse("refused by HBase")) }

  /** The rule and the first character that breaks it, or HBase's own reason when none seems to. */
  private def because(name: String, legal: Int => Boolean, rule: String, hbase: String): String =
    name.codePoints().toArray.find(cp => !legal(cp)) match {
      case Some(cp) =>
        val shown = if (Character.isISOControl(cp)) f"U+$cp%04X" else s"'${new String(Character.toChars(cp))}'"
        s"$rule; it has $shown"
      case None => hbase
    }
}
