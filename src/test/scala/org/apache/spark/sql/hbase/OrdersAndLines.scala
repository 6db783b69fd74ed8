// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

/**
 * Two HBase tables to join on their leading key, whose regions are cut at different keys: orders
 * keyed by ok in [0, 400), split at 100, 200 and 300, with d = ok % 7 (NULL where ok % 9 = 0 when
 * `nullDays`) and s (NULL where ok % 5 = 0); their lines keyed by (ok, ln), 0 to 3 lines per order
 * (ok % 4), split inside order 150's lines and at order 250, for orders 0..449: the last 50 have
 * no order.
 */
trait OrdersAndLines { self: HBaseSuite =>

  protected def ordersAndLines(prefix: String, nullDays: Boolean = false): (String, String) = {
    val (o, l) = (uniqueName(s"${prefix}_orders"), uniqueName(s"${prefix}_lines"))
    sql(
      s"CREATE TABLE $o (ok BIGINT, d INT, s STRING, PRIMARY KEY (ok)) MAPPED BY ($o, COLS=[d=f.d, s=f.s]) " +
        "SPLIT ON ((100), (200), (300))"
    )
    sql(
      s"CREATE TABLE $l (ok BIGINT, ln INT, q INT, PRIMARY KEY (ok, ln)) MAPPED BY ($l, COLS=[q=f.q]) " +
        "SPLIT ON ((150, 2), (250, 0))"
    )
    val day = if (nullDays) "IF(id % 9 = 0, NULL, CAST(id % 7 AS INT))" else "CAST(id % 7 AS INT)"
    sql(s"INSERT INTO $o SELECT id, $day, IF(id % 5 = 0, NULL, CAST(id AS STRING)) FROM range(0, 400)")
    sql(
      s"INSERT INTO $l SELECT o, CAST(n AS INT), CAST((o * 3 + n) % 11 AS INT) " +
        "FROM (SELECT id AS o FROM range(0, 450)) LATERAL VIEW explode(sequence(1, CAST(o % 4 AS INT))) t AS n " +
        "WHERE o % 4 > 0"
    )
    (o, l)
  }
}
