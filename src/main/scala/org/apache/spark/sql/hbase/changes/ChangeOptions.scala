// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.sql.SQLContext
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Literal}
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.types.TimestampType
import org.apache.spark.sql.hbase.connector.DataSourceOptions

/**
 * The options of format("hbase") that read changes: `changesSince` (a batch read of the rows
 * written since then), and for a stream `startingTimestamp` and `maxRowsPerTrigger`.
 */
object ChangeOptions {
  val ChangesSince = "changesSince"
  val StartingTimestamp = "startingTimestamp"
  val MaxRowsPerTrigger = "maxRowsPerTrigger"

  /** The batch read of changes that option changesSince asks for, if it does. */
  def batchRead(
      sqlContext: SQLContext,
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      parameters: Map[String, String]
  ): Option[HBaseChangesRelation] =
    timestamp(sqlContext, table, parameters, ChangesSince).map { since =>
      if (DataSourceOptions.asOfMillis(sqlContext, parameters).isDefined) {
        throw new HBaseSQLException(s"Reading HBase table '${table.name}': options $ChangesSince and " +
          s"${DataSourceOptions.AsOfTimestampOption} cannot be combined; the changes are read with the rows' current values")
      }
      HBaseChangesRelation(read(sqlContext, table, cluster, since, ChangesSince))(sqlContext)
    }

  /**
   * The read of the rows written from `since` (epoch milliseconds) up to the clock less the lag;
   * the same for option changesSince and for hbase_changes. A time after the clock is refused.
   */
  def read(sqlContext: SQLContext, table: HBaseTableDef, cluster: HBaseClusterConf, since: Long, what: String)
      : ChangeRead = {
    val now = System.currentTimeMillis()
    if (since > now) {
      throw new HBaseSQLException(s"Reading the changes of HBase table '${table.name}': $what " +
        s"${java.time.Instant.ofEpochMilli(since)} is in the future (now is ${java.time.Instant.ofEpochMilli(now)})")
    }
    val until = math.max(since, now - conf(sqlContext, HBaseSQLConf.ChangesLag))
    template(sqlContext, table, cluster).copy(from = ChangePosition(since, None), to = ChangePosition(until, None))
  }

  /** The stream of changes of `table`, from option startingTimestamp or else from now. */
  def source(
      sqlContext: SQLContext,
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      parameters: Map[String, String]
  ): HBaseChangeSource = {
    val now = System.currentTimeMillis()
    val start = timestamp(sqlContext, table, parameters, StartingTimestamp).getOrElse(now)
    if (start > now) {
      throw new HBaseSQLException(s"Stream of changes of HBase table '${table.name}': option $StartingTimestamp " +
        s"${java.time.Instant.ofEpochMilli(start)} is in the future (now is ${java.time.Instant.ofEpochMilli(now)})")
    }
    val maxRows = option(parameters, MaxRowsPerTrigger).map { text =>
      text.trim.toIntOption.filter(_ > 0).getOrElse(throw new HBaseSQLException(
        s"Stream of changes of HBase table '${table.name}': option $MaxRowsPerTrigger '$text' is not a positive whole number"
      ))
    }
    new HBaseChangeSource(
      sqlContext,
      template(sqlContext, table, cluster),
      ChangePosition(start, None),
      conf(sqlContext, HBaseSQLConf.ChangesLag),
      maxRows
    )
  }

  private def template(sqlContext: SQLContext, table: HBaseTableDef, cluster: HBaseClusterConf): ChangeRead = {
    val origin = ChangePosition(0L, None)
    ChangeRead(
      table,
      cluster,
      origin,
      origin,
      conf(sqlContext, HBaseSQLConf.ScannerFetchSize),
      conf(sqlContext, HBaseSQLConf.BadRowKeys) == "skip"
    )
  }

  private def conf[T](sqlContext: SQLContext, entry: org.apache.spark.internal.config.ConfigEntry[T]): T =
    sqlContext.sparkSession.sessionState.conf.getConf(entry)

  private def option(parameters: Map[String, String], name: String): Option[String] =
    parameters.collectFirst { case (k, v) if k.equalsIgnoreCase(name) => v }

  /**
   * A timestamp option as epoch milliseconds: a TIMESTAMP literal's text, read in the session's
   * time zone, or a whole number of epoch milliseconds.
   */
  def timestamp(sqlContext: SQLContext, table: HBaseTableDef, parameters: Map[String, String], name: String)
      : Option[Long] = option(parameters, name).map { text =>
    text.trim.toLongOption.getOrElse {
      val zone = sqlContext.sparkSession.sessionState.conf.sessionLocalTimeZone
      Option(Cast(Literal(text), TimestampType, Some(zone), EvalMode.TRY).eval()) match {
        case Some(micros: Long) => Math.floorDiv(micros, 1000L)
        case _ => throw new HBaseSQLException(
            s"Reading the changes of HBase table '${table.name}': option $name '$text' is not a timestamp " +
              "(such as '2026-11-24 10:00:00') or epoch milliseconds"
          )
      }
    }
  }
}
