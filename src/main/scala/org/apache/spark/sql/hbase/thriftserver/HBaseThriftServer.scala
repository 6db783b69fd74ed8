// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.conf.HiveConf
import org.apache.hive.service.CompositeService
import org.apache.hive.service.cli.CLIService
import org.apache.hive.service.server.HiveServer2

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hive.thriftserver.HiveThriftServer2
import org.apache.spark.sql.internal.StaticSQLConf

/**
 * Spark's Thrift JDBC/ODBC server, whose metadata calls list the HBase tables too
 * ([[HBaseOperationManager]]): `spark-submit --class org.apache.spark.sql.hbase.thriftserver.HBaseThriftServer`
 * takes the arguments and settings of Spark's own (`HiveThriftServer2`, which
 * `spark-hbase thriftserver start` used before), and starts its Spark session the same way.
 */
object HBaseThriftServer {
  val MainClass: String = "org.apache.spark.sql.hbase.thriftserver.HBaseThriftServer"

  def main(args: Array[String]): Unit = {
    // --hiveconf k=v become system properties, which Hive's settings read.
    new HiveServer2.ServerOptionsProcessor("HBaseThriftServer").parse(args)
    val session = sparkSqlEnvSession()
    val server = HiveThriftServer2.startWithSparkSession(session, true)
    if (session.conf.get(StaticSQLConf.CATALOG_IMPLEMENTATION) == "in-memory") sessionsMetastoreInMemory(server)
    HBaseOperationManager.install(server: CompositeService)
  }

  /**
   * With Spark's tables in memory, Hive's session code still opens a metastore client when a JDBC
   * session closes (SessionState.close), on the settings Spark gave its execution Hive: a Derby URL
   * (`jdbc:derby:memory:;databaseName=...`) that this Derby cannot open, which Hive retries for 20 s
   * before it gives up. Sessions opened from now on take an in-memory Derby that opens.
   */
  private def sessionsMetastoreInMemory(server: CompositeService): Unit =
    server.getServices.asScala.collectFirst { case cli: CLIService => cli.getSessionManager.getHiveConf }.foreach {
      _.setVar(HiveConf.ConfVars.METASTORECONNECTURLKEY, "jdbc:derby:memory:spark_hbase_sql_sessions;create=true")
    }

  /** The Spark session Spark's Thrift server starts (app name, Hive support, Hive's output), through its own code. */
  private def sparkSqlEnvSession(): SparkSession = {
    val env = Class.forName("org.apache.spark.sql.hive.thriftserver.SparkSQLEnv$").getField("MODULE$").get(null)
    env.getClass.getMethod("init").invoke(env)
    env.getClass.getMethod("sparkSession").invoke(env).asInstanceOf[SparkSession]
  }
}
