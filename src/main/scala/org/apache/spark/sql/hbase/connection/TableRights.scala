// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.security.access.Permission
import org.apache.hadoop.security.UserGroupInformation

import org.apache.spark.sql.hbase.common.Causes

/** What HBase lets the user of a cluster's connections do with its tables. */
object TableRights {

  /**
   * Fails `statement`, which shows `table`'s definition, unless HBase lets the connections' user
   * read its HBase table `hbase`: what SHOW TABLES does not list, DESCRIBE does not show either.
   */
  def requireReadable(cluster: HBaseClusterConf, statement: String, table: String, hbase: TableName): Unit =
    if (!readable(cluster, Seq(hbase)).contains(hbase)) {
      val user =
        cluster.settings.getOrElse(StatementIdentity.UserKey, UserGroupInformation.getCurrentUser.getShortUserName)
      throw HBaseAccessDenied.unreadable(statement, table, hbase.getNameAsString, user)
    }

  /**
   * Of `tables`, those HBase lets the connections' user read (by a grant on the table, its
   * namespace or globally); all of them where HBase checks no rights (no AccessController). One
   * call to the master, which answers for the caller only.
   */
  def readable(cluster: HBaseClusterConf, tables: Seq[TableName]): Set[TableName] =
    if (tables.isEmpty) Set.empty
    else HBaseConnections.withConnection(cluster) { connection =>
      val admin = connection.getAdmin
      try {
        val asked = tables.map(t => Permission.newBuilder(t).withActions(Permission.Action.READ).build())
        tables.zip(admin.hasUserPermissions(asked.asJava).asScala).collect {
          case (t, readable) if readable.booleanValue => t
        }.toSet
      } catch {
        case e: Exception if Causes.of(e).exists(c => String.valueOf(c.getMessage).contains("is not loaded")) =>
          tables.toSet
      } finally admin.close()
    }
}
