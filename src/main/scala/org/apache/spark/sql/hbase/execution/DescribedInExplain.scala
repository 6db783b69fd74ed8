// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import org.apache.spark.sql.execution.SparkPlan

/**
 * A node of ours that EXPLAIN FORMATTED describes with the words plain EXPLAIN uses. Spark's
 * default prints every field of the node's case class: for a scan, the table's definition,
 * every region's key ranges and the HBase client's whole configuration. Spark's UI shows each
 * statement's plan that way, so every statement built that text: 1 to 1.6 % of a warm lookup's
 * CPU on the thread that ran it.
 *
 * The node's `simpleString` must not call `argString`, which here calls it.
 */
trait DescribedInExplain extends SparkPlan {
  override def argString(maxFields: Int): String = simpleString(maxFields).stripPrefix(nodeName).stripPrefix(",").trim
}
