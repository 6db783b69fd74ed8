// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import java.util.Locale

import org.apache.spark.SparkContext
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.execution.metric.SQLMetric
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, SparkFallback}
import org.apache.spark.sql.hbase.execution.load.{BulkLoad, CsvInput, IndexedLoad, LoadMetrics}
import org.apache.spark.sql.hbase.facts.HBaseTableSizes
import org.apache.spark.sql.hbase.rangeindex.WriteRecording
import org.apache.spark.sql.types.LongType

/**
 * `LOAD DATA [PARALLEL] [LOCAL] INPATH 'path' INTO TABLE t [FIELDS TERMINATED BY 'c'] [OPTIONS (...)]`:
 * delimited text files into an HBase table, as HFiles (see [[BulkLoad]]). OPTIONS are those of
 * Spark's CSV reader (header, quote, escape, nullValue, dateFormat, timestampFormat, ...) plus
 * `onBadRow` ('fail', the default, or 'skip'). For a table that is not an HBase table, Spark's own
 * LOAD DATA runs. Its progress shows as Spark's does: jobs described as "LOAD DATA into t: ...",
 * and its [[LoadMetrics]] on its node of the plan.
 */
case class LoadDataCommand(
    table: Seq[String],
    path: String,
    local: Boolean,
    parallel: Boolean,
    overwrite: Boolean,
    delimiter: Option[String],
    options: Map[String, String],
    sparkPlan: Option[LogicalPlan]
) extends LeafRunnableCommand {

  /** What the load read, wrote and loaded (see [[LoadMetrics]]), on the command's node of the plan. */
  override lazy val metrics: Map[String, SQLMetric] = LoadMetrics.create(SparkContext.getOrCreate())

  override val output: Seq[Attribute] = Seq(
    AttributeReference("rows_loaded", LongType, nullable = false)(),
    AttributeReference("rows_skipped", LongType, nullable = false)()
  )

  override def run(session: SparkSession): Seq[Row] = {
    val name = table.mkString(".")
    val (catalog, definition) = HBaseTableIdent.sparkFirst(session, table, s"LOAD DATA INTO TABLE $name") match {
      case Some(found) => found
      case None => return sparkPlan.filter(_ => !parallel && delimiter.isEmpty && options.isEmpty) match {
          case Some(plan) => SparkFallback.run(session, plan); Seq.empty
          case None => throw new HBaseSQLException(
              s"LOAD DATA INTO TABLE $name: no HBase table '$name' (PARALLEL, FIELDS TERMINATED BY and OPTIONS are for HBase tables)"
            )
        }
    }
    if (overwrite) {
      throw new HBaseSQLException(s"LOAD DATA ... OVERWRITE INTO TABLE $name: HBase tables are not overwritten; " +
        "leave OVERWRITE out, and loaded rows replace the rows with the same key")
    }
    val lowered = options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    val skipBadRows = lowered.getOrElse("onbadrow", "fail").toLowerCase(Locale.ROOT) match {
      case "fail" => false
      case "skip" => true
      case other => throw new HBaseSQLException(s"LOAD DATA OPTIONS: onBadRow is 'fail' or 'skip', not '$other'")
    }
    val header = lowered.getOrElse("header", "false").toLowerCase(Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case other => throw new HBaseSQLException(s"LOAD DATA OPTIONS: header is 'true' or 'false', not '$other'")
    }
    val sep = delimiter.orElse(lowered.get("sep")).orElse(lowered.get("delimiter")).getOrElse(",")
    if (sep.isEmpty) throw new HBaseSQLException("LOAD DATA FIELDS TERMINATED BY: the delimiter is empty")
    val csvOptions = options.filter { case (k, _) =>
      !Set(
        "onbadrow",
        "header",
        "sep",
        "delimiter",
        "mode",
        "columnnameofcorruptrecord"
      ).contains(k.toLowerCase(Locale.ROOT))
    }
    val location = if (local && !path.contains(":")) "file://" + new java.io.File(path).getAbsolutePath else path

    val format = CsvInput.Format(definition, sep, header, csvOptions)
    val counted = LoadMetrics.of(metrics)
    // Without PARALLEL, a bad row fails the load before anything is loaded (see BulkLoad); with it,
    // runs of input in key order before the bad row may already be in the table.
    val loadedSoFar = if (parallel) "rows before it may have been loaded" else "nothing was loaded"
    val rows = CsvInput.read(
      session,
      location,
      path,
      format,
      CsvInput.OnBadRow(
        skipBadRows,
        where => new HBaseSQLException(s"LOAD DATA INTO TABLE $name: $where; $loadedSoFar")
      ),
      counted
    )
    val loaded = try BulkLoad(
        definition,
        catalog.cluster,
        rows,
        parallel,
        WriteRecording.of(session, catalog.cluster, definition),
        IndexedLoad.of(catalog, definition),
        counted,
        s"LOAD DATA into $name"
      )
    finally HBaseTableSizes.forget(catalog.cluster, definition.hbaseTable)
    Seq(Row(loaded, counted.rowsSkipped.value))
  }
}
