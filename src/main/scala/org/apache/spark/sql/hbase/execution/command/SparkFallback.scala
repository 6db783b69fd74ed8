package org.apache.spark.sql.hbase.execution.command

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic

/**
 * Statements such as DROP TABLE or DESCRIBE are ours only when they name an HBase table; for any
 * other table they run the plan Spark's own parser made of the same text.
 */
private[hbase] object SparkFallback {
  def run(session: SparkSession, sparkPlan: LogicalPlan): Seq[Row] =
    classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], sparkPlan).collect().toSeq
}
