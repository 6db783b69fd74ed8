// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import scala.util.Random

/** Random WHERE clauses for the differential specs: atoms nested in AND, OR and NOT. */
object RandomClauses {
  def nested(random: Random, depth: Int)(atom: => String): String =
    if (depth == 0) atom
    else random.nextInt(4) match {
      case 0 => s"(${nested(random, depth - 1)(atom)}) AND (${nested(random, depth - 1)(atom)})"
      case 1 => s"(${nested(random, depth - 1)(atom)}) OR (${nested(random, depth - 1)(atom)})"
      case 2 => s"NOT (${nested(random, depth - 1)(atom)})"
      case _ => atom
    }
}
