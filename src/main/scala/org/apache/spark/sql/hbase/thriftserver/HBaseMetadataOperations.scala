// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import scala.jdk.CollectionConverters._

import org.apache.hive.service.cli.{FetchOrientation, HiveSQLException, OperationState, RowSet, RowSetFactory}
import org.apache.hive.service.cli.operation.{GetColumnsOperation, GetSchemasOperation, GetTablesOperation, Operation}
import org.apache.hive.service.cli.session.HiveSession

import org.apache.spark.sql.SparkSession

/*
 * The JDBC/ODBC metadata calls (getSchemas, getTables, getColumns): Spark's own answer from its
 * session catalog, then the session's HBase catalogs ([[HBaseCatalogListing]]). Spark's operations
 * are private to its package, so each of ours runs Spark's and takes over its rows. They run as
 * the session's user (Hive's doAs), so each user sees the HBase tables HBase lets them read. A
 * failure fails the call with our message.
 */

private[thriftserver] object HBaseMetadataOperations {

  /**
   * Runs `spark` (Spark's operation for the same call), adds its rows to `rows`, then ours; closes
   * Spark's operation (`forget` drops it from the manager). The operation ends FINISHED, or in
   * ERROR saying what failed.
   */
  def answer(operation: String, setState: OperationState => Unit, spark: Operation, forget: Operation => Unit)(
      rows: RowSet
  )(ours: => Unit): Unit = {
    setState(OperationState.RUNNING)
    try {
      spark.run()
      val sparks = RowSetFactory.create(
        spark.getNextRowSet(FetchOrientation.FETCH_NEXT, Int.MaxValue),
        spark.getProtocolVersion
      )
      sparks.iterator().asScala.foreach(rows.addRow)
      ours
      setState(OperationState.FINISHED)
    } catch {
      case e: HiveSQLException =>
        setState(OperationState.ERROR)
        throw e
      case e: Exception =>
        setState(OperationState.ERROR)
        throw new HiveSQLException(s"$operation of the HBase catalogs failed: ${e.getMessage}", e)
    } finally {
      spark.close()
      forget(spark)
    }
  }
}

private[thriftserver] final class HBaseGetSchemas(
    session: SparkSession,
    parent: HiveSession,
    catalogName: String,
    schemaPattern: String,
    spark: Operation,
    forget: Operation => Unit
) extends GetSchemasOperation(parent, catalogName, schemaPattern) {

  override def runInternal(): Unit =
    HBaseMetadataOperations.answer("getSchemas", setState, spark, forget)(rowSet) {
      HBaseCatalogListing(session).schemas(schemaPattern).foreach(schema => rowSet.addRow(Array[AnyRef](schema, "")))
    }
}

private[thriftserver] final class HBaseGetTables(
    session: SparkSession,
    parent: HiveSession,
    catalogName: String,
    schemaPattern: String,
    tablePattern: String,
    tableTypes: java.util.List[String],
    spark: Operation,
    forget: Operation => Unit
) extends GetTablesOperation(parent, catalogName, schemaPattern, tablePattern, tableTypes) {

  override def runInternal(): Unit =
    HBaseMetadataOperations.answer("getTables", setState, spark, forget)(rowSet) {
      if (tableTypes == null || tableTypes.asScala.exists(_.equalsIgnoreCase("TABLE"))) {
        val listing = HBaseCatalogListing(session)
        for (schema <- listing.schemas(schemaPattern); table <- listing.tables(schema, tablePattern)) {
          // Hive 2.3's ten columns, as Spark's rows: catalog, schema, name, type, remarks, then five unused.
          rowSet.addRow(Array[AnyRef]("", schema, table, "TABLE", "", null, null, null, null, null))
        }
      }
    }
}

private[thriftserver] final class HBaseGetColumns(
    session: SparkSession,
    parent: HiveSession,
    catalogName: String,
    schemaPattern: String,
    tablePattern: String,
    columnPattern: String,
    spark: Operation,
    forget: Operation => Unit
) extends GetColumnsOperation(parent, catalogName, schemaPattern, tablePattern, columnPattern) {

  override def runInternal(): Unit =
    HBaseMetadataOperations.answer("getColumns", setState, spark, forget)(rowSet) {
      val listing = HBaseCatalogListing(session)
      val columns = HBaseCatalogListing.like(columnPattern)
      for {
        schema <- listing.schemas(schemaPattern)
        table <- listing.tables(schema, tablePattern)
        (field, position) <- listing.columns(schema, table).fields.zipWithIndex
        if columns.matcher(field.name).matches()
      } rowSet.addRow(JdbcColumns.row(schema, table, field, position + 1))
    }
}
