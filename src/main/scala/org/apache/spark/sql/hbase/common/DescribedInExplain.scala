// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.common

import org.apache.spark.sql.catalyst.trees.TreeNode

/**
 * A plan node of ours (logical, a command, or physical) that EXPLAIN FORMATTED describes with the
 * words plain EXPLAIN uses. Spark's default prints every field of the node's case class: the
 * table's definition and the HBase client's whole configuration, and for a scan every region's
 * key ranges. Spark's UI shows each statement's plan that way, so every statement built that
 * text: 1 to 1.6 % of a warm lookup's CPU on the thread that ran it.
 *
 * The node's `simpleString` must say what it is without calling `argString`, which here calls it.
 */
trait DescribedInExplain[T <: TreeNode[T]] extends TreeNode[T] { self: T =>
  override def argString(maxFields: Int): String = simpleString(maxFields).stripPrefix(nodeName).stripPrefix(",").trim
}
