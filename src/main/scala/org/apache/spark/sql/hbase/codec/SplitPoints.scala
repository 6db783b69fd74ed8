// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import scala.util.control.NonFatal

import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Expression}
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef

/** `SPLIT ON ((v1[, v2 ...]), ...)`: region boundaries given as key prefixes, made row keys. */
object SplitPoints {

  /**
   * Encodes each point (the SQL text of its literals) as a key prefix of `table`, checking that
   * the points are key prefixes of the right types in strictly ascending key order.
   */
  def encode(table: HBaseTableDef, points: Seq[Seq[String]], parse: String => Expression): Seq[Array[Byte]] = {
    def fail(msg: String) = throw new HBaseSQLException(s"CREATE TABLE ${table.name} SPLIT ON: $msg")
    val codec = KeyCodec.forTable(table)
    val keys = table.keys
    val encoded = points.zipWithIndex.map { case (texts, index) =>
      val label = s"point ${index + 1} (${texts.mkString(", ")})"
      if (texts.size > keys.size) {
        fail(
          s"$label has ${texts.size} values but the primary key (${table.keyColumns.mkString(", ")}) has ${keys.size} columns"
        )
      }
      val values = texts.zip(keys).map { case (text, key) =>
        val value = try Cast(parse(text), key.dataType, Some("UTC"), EvalMode.ANSI).eval()
        catch {
          case NonFatal(_) => fail(s"$label: $text is not a valid ${key.dataType.sql} for key column '${key.name}'")
        }
        if (value == null) fail(s"$label: key column '${key.name}' cannot be NULL")
        value
      }
      (label, codec.encodePrefix(values))
    }
    encoded.sliding(2).foreach {
      case Seq((prevLabel, prev), (label, next)) if java.util.Arrays.compareUnsigned(prev, next) >= 0 =>
        fail(s"points must be in ascending key order, but $label does not come after $prevLabel")
      case _ =>
    }
    encoded.map(_._2)
  }
}
