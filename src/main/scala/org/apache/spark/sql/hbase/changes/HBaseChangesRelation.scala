package org.apache.spark.sql.hbase.changes

import org.apache.spark.rdd.RDD
import org.apache.spark.sql.{Row, SQLContext}
import org.apache.spark.sql.hbase.HBaseSQLConf
import org.apache.spark.sql.sources.{BaseRelation, TableScan}
import org.apache.spark.sql.types.StructType

/**
 * The changes of a table as a relation: what `spark.read.format("hbase").option("changesSince", ...)`,
 * `hbase_changes(...)` and each micro-batch of a stream read. EXPLAIN shows the span it reads.
 */
final case class HBaseChangesRelation(read: ChangeRead)(@transient val sqlContext: SQLContext)
    extends BaseRelation with TableScan {

  override def schema: StructType = read.schema

  // The rows are Catalyst's already.
  override def needConversion: Boolean = false

  override def buildScan(): RDD[Row] =
    new ChangesRDD(
      sqlContext.sparkContext,
      read,
      sqlContext.sparkSession.sessionState.conf.getConf(HBaseSQLConf.PartitionExpiration)
    ).asInstanceOf[RDD[Row]]

  override def toString: String = read.describe
}
