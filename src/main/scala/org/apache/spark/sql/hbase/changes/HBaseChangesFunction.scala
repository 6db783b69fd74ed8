// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.sql.catalyst.FunctionIdentifier
import org.apache.spark.sql.catalyst.expressions.{Cast, EvalMode, Expression, ExpressionInfo}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.classic.SparkSession
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.types.{StringType, TimestampType}
import org.apache.spark.sql.hbase.connector.DataSourceOptions

/**
 * `SELECT * FROM hbase_changes('t', TIMESTAMP '2026-11-24 10:00:00')`: the rows of table `t`
 * written since then, as option changesSince reads them.
 */
object HBaseChangesFunction {
  val Name = "hbase_changes"

  val identifier: FunctionIdentifier = FunctionIdentifier(Name)

  val info: ExpressionInfo = new ExpressionInfo(
    getClass.getName,
    null,
    Name,
    s"$Name(table, since) - the rows of HBase table `table` written since the TIMESTAMP `since`, up to the " +
      "clock less spark.sql.hbase.changes.lagMillis, with their current values, _change_type and _commit_timestamp",
    "",
    s"\n    > SELECT * FROM $Name('t', TIMESTAMP '2026-11-24 10:00:00');\n",
    "",
    "table_funcs",
    "",
    "",
    "built-in"
  )

  def apply(arguments: Seq[Expression]): LogicalPlan = {
    val session = SparkSession.active
    val (tableArg, sinceArg) = arguments match {
      case Seq(table, since) => (table, since)
      case _ => throw new HBaseSQLException(
          s"$Name takes 2 arguments, the table's name and a TIMESTAMP, as in $Name('t', TIMESTAMP '2026-11-24 10:00:00'); " +
            s"it was given ${arguments.size}"
        )
    }
    val name = constant(tableArg, "its first argument, the table's name") match {
      case s if s != null && tableArg.dataType == StringType => s.toString
      case _ => throw new HBaseSQLException(s"$Name: its first argument must be the table's name as a string, " +
          s"not ${tableArg.sql}")
    }
    val parameters = Map("table" -> name)
    val (table, cluster) = DataSourceOptions.table(session.sqlContext, parameters)
    val zone = session.sessionState.conf.sessionLocalTimeZone
    val micros = constant(Cast(sinceArg, TimestampType, Some(zone), EvalMode.TRY), "its second argument") match {
      case m: Long => m
      case _ =>
        throw new HBaseSQLException(s"$Name('$name', ...): its second argument ${sinceArg.sql} is not a TIMESTAMP")
    }
    val read =
      ChangeOptions.read(session.sqlContext, table, cluster, Math.floorDiv(micros, 1000L), s"$Name's TIMESTAMP")
    LogicalRelation(HBaseChangesRelation(read)(session.sqlContext), isStreaming = false)
  }

  private def constant(e: Expression, what: String): Any =
    if (e.foldable) e.eval()
    else throw new HBaseSQLException(s"$Name: $what must be a constant, not ${e.sql}")
}
