// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.thriftserver.HBaseThriftServer

/**
 * In Spark's Thrift server the plugin must be on the driver's own class path, not only in
 * `--jars`. The server runs Hive 2.3's session code, and closing a JDBC session closes every
 * class loader between the session's and Hive's own (HIVE-22989, fixed only in Hive 4), which
 * includes the loader Spark made for `--jars`. Classes of the plugin not loaded by then can no
 * longer be found, so every HBase statement of later sessions would fail with
 * NoClassDefFoundError. A server started that way is refused at once, saying how to start it.
 */
object ThriftServerClassPath {
  // Spark's own, and ours around it.
  private val ThriftServerMains =
    Seq("org.apache.spark.sql.hive.thriftserver.HiveThriftServer2", HBaseThriftServer.MainClass)

  def check(): Unit =
    if (inThriftServer && !onJvmClassPath) {
      throw new HBaseSQLException(
        s"spark-hbase-sql is loaded from --jars (or spark.jars) in Spark's Thrift server, which closes " +
          "that class loader when the first JDBC session closes (HIVE-22989): every HBase statement after " +
          s"it would fail with NoClassDefFoundError. Put the jar on the driver's class path too: " +
          s"--driver-class-path $jar (spark.driver.extraClassPath), as the flags printed by `spark-hbase conf` do"
      )
    }

  private def inThriftServer: Boolean =
    Option(System.getProperty("sun.java.command")).exists(command => ThriftServerMains.exists(command.contains))

  /** Loaded by the JVM's application class loader (or one of its parents), which nothing closes. */
  private def onJvmClassPath: Boolean = {
    val ours = getClass.getClassLoader
    Iterator.iterate(ClassLoader.getSystemClassLoader)(_.getParent).takeWhile(_ != null).contains(ours)
  }

  private def jar: String =
    Option(getClass.getProtectionDomain.getCodeSource).map(_.getLocation.getPath).getOrElse("<the plugin jar>")
}
