// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SQLContext
import org.apache.spark.sql.catalyst.analysis.{AsOfTimestamp, TimeTravelSpec}
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableDefinitionStores}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.facts.TableDefinitions
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * What the options of format("hbase") name: the table, and the time a read is as of. Reads of rows
 * and of changes both take them.
 */
object DataSourceOptions {
  val AsOfTimestampOption = "asOfTimestamp"

  /** The table the options name, and its cluster; a clear error when there is no such table. */
  def table(sqlContext: SQLContext, parameters: Map[String, String]): (HBaseTableDef, HBaseClusterConf) = {
    val catalog = TableDefinitionStores.of(sqlContext.sparkSession)
    val name = tableOption(parameters)
    val table = TableDefinitions.get(catalog, name).getOrElse(throw new HBaseSQLException(
      s"HBase table '$name' does not exist; create it with CREATE TABLE $name (...) MAPPED BY (...)"
    ))
    (table, catalog.cluster)
  }

  /** The option's timestamp, read as Spark reads TIMESTAMP '...' in the session's time zone, as epoch milliseconds. */
  def asOfMillis(sqlContext: SQLContext, parameters: Map[String, String]): Option[Long] = {
    val options = new CaseInsensitiveStringMap(parameters.asJava)
    if (options.containsKey("asOfVersion") || options.containsKey("versionAsOf")) {
      throw new HBaseSQLException(s"HBase table '${tableOption(parameters)}': reading a version is not supported; " +
        s"HBase keeps the versions of each cell by time, so use option $AsOfTimestampOption")
    }
    TimeTravelSpec.fromOptions(
      options,
      AsOfTimestampOption,
      "asOfVersion",
      sqlContext.sparkSession.sessionState.conf.sessionLocalTimeZone
    ).map {
      case AsOfTimestamp(micros) => Math.floorDiv(micros, 1000L)
      case other => throw new IllegalStateException(s"$AsOfTimestampOption gave $other")
    }
  }

  def tableOption(parameters: Map[String, String]): String =
    parameters.get("table").orElse(parameters.get("path")).filter(_.nonEmpty).getOrElse(
      throw new HBaseSQLException("format(\"hbase\") needs the table: .option(\"table\", \"name\") or .load(\"name\")")
    )
}
