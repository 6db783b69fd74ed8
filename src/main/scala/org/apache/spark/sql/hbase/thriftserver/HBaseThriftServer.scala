// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import org.apache.hive.service.CompositeService
import org.apache.hive.service.server.HiveServer2

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hive.thriftserver.HiveThriftServer2

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
    val server = HiveThriftServer2.startWithSparkSession(sparkSqlEnvSession(), true)
    HBaseOperationManager.install(server: CompositeService)
  }

  /** The Spark session Spark's Thrift server starts (app name, Hive support, Hive's output), through its own code. */
  private def sparkSqlEnvSession(): SparkSession = {
    val env = Class.forName("org.apache.spark.sql.hive.thriftserver.SparkSQLEnv$").getField("MODULE$").get(null)
    env.getClass.getMethod("init").invoke(env)
    env.getClass.getMethod("sparkSession").invoke(env).asInstanceOf[SparkSession]
  }
}
