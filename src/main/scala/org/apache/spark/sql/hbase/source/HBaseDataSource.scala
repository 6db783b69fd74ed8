// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.source

import org.apache.spark.sql.{DataFrame, SaveMode, SQLContext}
import org.apache.spark.sql.functions.lit
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableDefinitionStores}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.load.{BulkLoad, IndexedLoad, LoadMetrics}
import org.apache.spark.sql.hbase.rangeindex.WriteRecording
import org.apache.spark.sql.execution.streaming.{Sink, Source}
import org.apache.spark.sql.hbase.changes.ChangeRead
import org.apache.spark.sql.hbase.execution.write.{HBaseSinkWrite, HBaseStreamingSink}
import org.apache.spark.sql.sources.{
  BaseRelation, CreatableRelationProvider, DataSourceRegister, RelationProvider, StreamSinkProvider,
  StreamSourceProvider
}
import org.apache.spark.sql.streaming.OutputMode
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.hbase.changes.ChangeOptions
import org.apache.spark.sql.hbase.connector.DataSourceOptions

/**
 * `spark.read.format("hbase").option("table", "t").load()`,
 * `df.write.format("hbase").option("table", "t").mode("append").save()`,
 * `spark.readStream.format("hbase")` and `df.writeStream.format("hbase").option("table", "t")`,
 * for pipelines without SQL.
 * Both go through the same relation, planner and write path as SQL on table `t`. A read with
 * `.option("asOfTimestamp", "2026-11-24 10:00:00")` reads the table as TIMESTAMP AS OF does; one with
 * `.option("changesSince", ...)` reads the rows written since then, and `spark.readStream` streams
 * the rows written as they come ([[ChangeOptions]]).
 */
class HBaseDataSource
    extends RelationProvider with CreatableRelationProvider with DataSourceRegister with StreamSourceProvider
    with StreamSinkProvider {

  override def shortName(): String = "hbase"

  override def createRelation(sqlContext: SQLContext, parameters: Map[String, String]): BaseRelation = {
    val (table, cluster) = DataSourceOptions.table(sqlContext, parameters)
    ChangeOptions.batchRead(sqlContext, table, cluster, parameters).getOrElse(
      HBaseSourceRelation(table, cluster, DataSourceOptions.asOfMillis(sqlContext, parameters))(sqlContext)
    )
  }

  override def sourceSchema(
      sqlContext: SQLContext,
      schema: Option[StructType],
      providerName: String,
      parameters: Map[String, String]
  ): (String, StructType) = {
    val (table, cluster) = DataSourceOptions.table(sqlContext, parameters)
    // Bad options fail when the stream is defined, not only once it starts.
    ChangeOptions.source(sqlContext, table, cluster, parameters)
    if (schema.isDefined) {
      throw new HBaseSQLException(s"Stream of changes of HBase table '${table.name}': the stream has the table's " +
        "columns and _change_type, _commit_timestamp; a schema cannot be given")
    }
    (shortName(), ChangeRead.schema(table))
  }

  override def createSource(
      sqlContext: SQLContext,
      metadataPath: String,
      schema: Option[StructType],
      providerName: String,
      parameters: Map[String, String]
  ): Source = {
    val (table, cluster) = DataSourceOptions.table(sqlContext, parameters)
    ChangeOptions.source(sqlContext, table, cluster, parameters)
  }

  override def createRelation(
      sqlContext: SQLContext,
      mode: SaveMode,
      parameters: Map[String, String],
      data: DataFrame
  ): BaseRelation = {
    val relation = writeTarget(sqlContext, parameters, "Writing to")
    val name = relation.table.name
    mode match {
      case SaveMode.Append if parameters.get("bulkload").exists(_.equalsIgnoreCase("true")) =>
        bulkLoad(relation, data)
      case SaveMode.Append => data.write.insertInto(name)
      case SaveMode.Ignore =>
      case SaveMode.ErrorIfExists => throw new HBaseSQLException(
          s"HBase table '$name' exists; write to it with .mode(\"append\"), which inserts or replaces rows by key"
        )
      case SaveMode.Overwrite => throw new HBaseSQLException(
          s"Overwrite is not supported for HBase table '$name'; use .mode(\"append\"), which inserts or replaces rows by key"
        )
    }
    relation
  }

  /** `writeStream.format("hbase").option("table", "t")`: see [[HBaseStreamingSink]]. */
  override def createSink(
      sqlContext: SQLContext,
      parameters: Map[String, String],
      partitionColumns: Seq[String],
      outputMode: OutputMode
  ): Sink = {
    val relation = writeTarget(sqlContext, parameters, "Streaming into")
    val name = relation.table.name
    if (partitionColumns.nonEmpty) {
      throw new HBaseSQLException(
        s"Streaming into HBase table '$name': HBase tables have no partitions; remove partitionBy"
      )
    }
    if (outputMode == OutputMode.Complete()) throw HBaseSinkWrite.completeModeRefused(name)
    new HBaseStreamingSink(relation.table, relation.cluster)
  }

  /** The table a write goes to; an option of reads alone fails it, naming the `write` ("Writing to"). */
  private def writeTarget(sqlContext: SQLContext, parameters: Map[String, String], write: String) = {
    val relation = createRelation(sqlContext, parameters) match {
      case r: HBaseSourceRelation => r
      case _ => throw new HBaseSQLException(
          s"$write HBase table '${DataSourceOptions.tableOption(parameters)}': option ${ChangeOptions.ChangesSince} " +
            "applies to reads only"
        )
    }
    if (relation.asOfMillis.isDefined) {
      throw new HBaseSQLException(
        s"$write HBase table '${relation.table.name}': option ${DataSourceOptions.AsOfTimestampOption} applies to reads only"
      )
    }
    relation
  }

  /** The DataFrame's columns, by name and cast to the table's types, loaded as HFiles. */
  private def bulkLoad(relation: HBaseSourceRelation, data: DataFrame): Unit = {
    val table = relation.table
    val names = data.columns.map(_.toLowerCase(java.util.Locale.ROOT)).toSet
    table.writable.find(c => !names.contains(c.name.toLowerCase(java.util.Locale.ROOT))).foreach { c =>
      throw new HBaseSQLException(s"Bulk load into '${table.name}': the DataFrame has no column '${c.name}'")
    }
    // HBase sets write times: a DataFrame's column of that name is not loaded.
    val aligned = data.select(table.columns.map { c =>
      (if (c.isWriteTime) lit(null) else data.col(s"`${c.name}`")).cast(c.dataType).as(c.name)
    }: _*)
    val rows = aligned.queryExecution.toRdd.map(_.copy()).zipWithUniqueId().map { case (row, id) => (id, row) }
    BulkLoad(
      table,
      relation.cluster,
      rows,
      parallel = false,
      WriteRecording.of(data.sparkSession, relation.cluster, table),
      IndexedLoad.of(TableDefinitionStores.of(data.sparkSession), table),
      LoadMetrics.unshown(data.sparkSession.sparkContext),
      s"Bulk load into ${table.name}"
    )
  }
}

/** What Spark's data source resolution yields; our resolution rule swaps it for `HBaseRelation`. */
case class HBaseSourceRelation(table: HBaseTableDef, cluster: HBaseClusterConf, asOfMillis: Option[Long])(
    @transient val sqlContext: SQLContext
) extends BaseRelation {
  override def schema: StructType = table.schema
}
