// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.classic

/**
 * Statements of our grammar that Spark has too (ALTER TABLE ... DROP COLUMN, LOAD DATA) are ours
 * only when they name an HBase table that no Spark table or view shadows; otherwise they run the
 * plan Spark's own parser made of the same text.
 */
private[hbase] object SparkFallback {

  /** Whether a one-part name is Spark's, as a temporary view or a table of the current database: Spark's names win. */
  def ownsName(session: SparkSession, name: String): Boolean = {
    val catalog = session.sessionState.catalog
    catalog.isTempView(Seq(name)) || catalog.tableExists(TableIdentifier(name))
  }

  def run(session: SparkSession, sparkPlan: LogicalPlan): Seq[Row] =
    classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], sparkPlan).collect().toSeq
}
