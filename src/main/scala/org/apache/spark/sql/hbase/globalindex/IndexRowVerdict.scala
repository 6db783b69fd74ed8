// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import java.util.Arrays

/** The index row a data row gives: its key and its covered cells in canonical form. */
final case class ExpectedIndexRow(key: Array[Byte], covered: String)

/** An index row as the index table holds it: its key, status, covered cells and newest timestamp. */
final case class FoundIndexRow(key: Array[Byte], verified: Boolean, covered: String, timestamp: Long)

/**
 * What CHECK INDEX finds for one data row, from the index row the row gives (if any) and the
 * index rows that name it.
 *  - `missing`: the row gives an index row and the index has none under that key.
 *  - `stale`: the index row is there and VERIFIED, but its covered cells are not the row's.
 *  - `extra`: VERIFIED index rows the row does not give, which a reader would trust.
 *  - `unverified`: UNVERIFIED index rows, right or not, which a reader checks against the row.
 * `wrong` are the rows to delete; `reverify` says the row's index row must be written anew.
 */
final case class IndexRowVerdict(
    missing: Boolean,
    stale: Boolean,
    extra: Seq[FoundIndexRow],
    unverified: Seq[FoundIndexRow]
) {
  def isExact: Boolean = !missing && !stale && extra.isEmpty && unverified.isEmpty

  def wrong(expected: Option[ExpectedIndexRow]): Seq[FoundIndexRow] = (extra ++ unverified).filterNot(f =>
    expected.exists(e => Arrays.equals(e.key, f.key))
  )

  def reverify(expected: Option[ExpectedIndexRow]): Boolean =
    expected.isDefined && (missing || stale || unverified.exists(f => Arrays.equals(f.key, expected.get.key)))
}

object IndexRowVerdict {
  def of(expected: Option[ExpectedIndexRow], found: Seq[FoundIndexRow]): IndexRowVerdict = {
    val right = expected.flatMap(e => found.find(f => Arrays.equals(f.key, e.key)))
    IndexRowVerdict(
      missing = expected.isDefined && right.isEmpty,
      stale = right.exists(r => r.verified && r.covered != expected.get.covered),
      extra = found.filter(f => f.verified && !right.exists(_ eq f)),
      unverified = found.filterNot(_.verified)
    )
  }
}
