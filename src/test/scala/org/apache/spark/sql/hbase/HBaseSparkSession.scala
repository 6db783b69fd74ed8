package org.apache.spark.sql.hbase

import org.apache.spark.sql.SparkSession

/**
 * The Spark session the HBase-backed suites share, wired to the HBase that the build started for
 * this test run (its HBASE_CONF_DIR), or to an external one named the same way.
 */
object HBaseSparkSession {
  lazy val session: SparkSession = {
    require(
      sys.env.contains("HBASE_CONF_DIR"),
      "HBASE_CONF_DIR is not set: run the tests through sbt, which starts the embedded HBase"
    )
    SparkSession.builder()
      .master("local[2]")
      .appName("spark-hbase-sql tests")
      .config("spark.sql.extensions", classOf[HBaseSparkSessionExtension].getName)
      .config("spark.sql.catalog.hbase", classOf[connector.HBaseSparkCatalog].getName)
      .config("spark.ui.enabled", "false")
      .config("spark.sql.shuffle.partitions", "2")
      .getOrCreate()
  }
}
