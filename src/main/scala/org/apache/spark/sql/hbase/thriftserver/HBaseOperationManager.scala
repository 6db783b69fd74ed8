// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.thriftserver

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hive.conf.HiveConf
import org.apache.hive.service.CompositeService
import org.apache.hive.service.cli.{CLIService, FetchOrientation, OperationHandle, SessionHandle}
import org.apache.hive.service.cli.operation._
import org.apache.hive.service.cli.session.{HiveSession, SessionManager}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.SparkSession

/**
 * Spark's Thrift server's operations, with the metadata calls answered for the HBase catalogs too
 * ([[HBaseMetadataOperations]]). Spark's operation manager is private to its package, so this one
 * hands every call to it; ours run Spark's metadata operation for the same call and are kept
 * among Spark's operations, where every later call about them (status, fetch, close) finds them.
 */
final class HBaseOperationManager private (spark: OperationManager) extends OperationManager {

  private val sparkOperations: java.util.Map[OperationHandle, Operation] =
    HBaseOperationManager.field(classOf[OperationManager], spark, "handleToOperation")

  private val sparkSessions: java.util.Map[SessionHandle, SparkSession] =
    spark.getClass.getMethod("sessionToContexts").invoke(spark).asInstanceOf[java.util.Map[SessionHandle, SparkSession]]

  private def sessionOf(parent: HiveSession): SparkSession = {
    val session = sparkSessions.get(parent.getSessionHandle)
    require(
      session != null,
      s"Session handle: ${parent.getSessionHandle} has not been initialized or had already closed."
    )
    session
  }

  private val forget: Operation => Unit = operation => spark.synchronized(sparkOperations.remove(operation.getHandle))

  private def kept[T <: Operation](operation: T): T = {
    spark.synchronized(sparkOperations.put(operation.getHandle, operation))
    operation
  }

  override def newGetSchemasOperation(parent: HiveSession, catalogName: String, schemaName: String)
      : GetSchemasOperation = {
    val theirs = spark.newGetSchemasOperation(parent, catalogName, schemaName)
    kept(new HBaseGetSchemas(sessionOf(parent), parent, catalogName, schemaName, theirs, forget))
  }

  override def newGetTablesOperation(
      parent: HiveSession,
      catalogName: String,
      schemaName: String,
      tableName: String,
      tableTypes: java.util.List[String]
  ): MetadataOperation = {
    val theirs = spark.newGetTablesOperation(parent, catalogName, schemaName, tableName, tableTypes)
    kept(new HBaseGetTables(sessionOf(parent), parent, catalogName, schemaName, tableName, tableTypes, theirs, forget))
  }

  override def newGetColumnsOperation(
      parent: HiveSession,
      catalogName: String,
      schemaName: String,
      tableName: String,
      columnName: String
  ): GetColumnsOperation = {
    val theirs = spark.newGetColumnsOperation(parent, catalogName, schemaName, tableName, columnName)
    kept(new HBaseGetColumns(sessionOf(parent), parent, catalogName, schemaName, tableName, columnName, theirs, forget))
  }

  // Everything else is Spark's.
  override def newExecuteStatementOperation(
      parent: HiveSession,
      statement: String,
      confOverlay: java.util.Map[String, String],
      async: Boolean,
      queryTimeout: Long
  ): ExecuteStatementOperation = spark.newExecuteStatementOperation(parent, statement, confOverlay, async, queryTimeout)
  override def newGetTypeInfoOperation(parent: HiveSession): GetTypeInfoOperation =
    spark.newGetTypeInfoOperation(parent)
  override def newGetCatalogsOperation(parent: HiveSession): GetCatalogsOperation =
    spark.newGetCatalogsOperation(parent)
  override def newGetTableTypesOperation(parent: HiveSession): GetTableTypesOperation =
    spark.newGetTableTypesOperation(parent)
  override def newGetFunctionsOperation(parent: HiveSession, catalog: String, schema: String, function: String)
      : GetFunctionsOperation = spark.newGetFunctionsOperation(parent, catalog, schema, function)
  override def newGetPrimaryKeysOperation(parent: HiveSession, catalog: String, schema: String, table: String)
      : GetPrimaryKeysOperation = spark.newGetPrimaryKeysOperation(parent, catalog, schema, table)
  override def newGetCrossReferenceOperation(
      parent: HiveSession,
      primaryCatalog: String,
      primarySchema: String,
      primaryTable: String,
      foreignCatalog: String,
      foreignSchema: String,
      foreignTable: String
  ): GetCrossReferenceOperation = spark.newGetCrossReferenceOperation(
    parent,
    primaryCatalog,
    primarySchema,
    primaryTable,
    foreignCatalog,
    foreignSchema,
    foreignTable
  )
  override def getOperation(handle: OperationHandle): Operation = spark.getOperation(handle)
  override def getOperationStatus(handle: OperationHandle) = spark.getOperationStatus(handle)
  override def cancelOperation(handle: OperationHandle): Unit = spark.cancelOperation(handle)
  override def closeOperation(handle: OperationHandle): Unit = spark.closeOperation(handle)
  override def getOperationResultSetSchema(handle: OperationHandle) = spark.getOperationResultSetSchema(handle)
  override def getOperationNextRowSet(handle: OperationHandle, orientation: FetchOrientation, maxRows: Long) =
    spark.getOperationNextRowSet(handle, orientation, maxRows)
  override def getOperationLogRowSet(handle: OperationHandle, orientation: FetchOrientation, maxRows: Long) =
    spark.getOperationLogRowSet(handle, orientation, maxRows)
  override def getOperationLogByThread = spark.getOperationLogByThread
  override def removeExpiredOperations(handles: Array[OperationHandle]): java.util.List[Operation] =
    spark.removeExpiredOperations(handles)
}

object HBaseOperationManager extends Logging {

  /**
   * Puts our operations in front of Spark's in a started Thrift server: its session manager, and
   * every session open so far, use them. Spark puts its own manager in place the same way (it
   * sets Hive's private field). If this Spark's classes are not as expected, the server keeps
   * Spark's operations alone and says so.
   */
  def install(server: CompositeService): Unit =
    try {
      val cli = server.getServices.asScala.collectFirst { case c: CLIService => c }
        .getOrElse(throw new NoSuchFieldException("the server has no CLIService"))
      val sessions = cli.getSessionManager
      val ours = new HBaseOperationManager(sessions.getOperationManager)
      // Spark's manager captures the operations' logs already; a second capture would log each line twice.
      val conf = new HiveConf(sessions.getHiveConf)
      conf.setBoolVar(HiveConf.ConfVars.HIVE_SERVER2_LOGGING_OPERATION_ENABLED, false)
      ours.init(conf)
      ours.start()
      val operationManager = classOf[SessionManager].getDeclaredField("operationManager")
      operationManager.setAccessible(true)
      operationManager.set(sessions, ours)
      field[java.util.Map[SessionHandle, HiveSession]](classOf[SessionManager], sessions, "handleToSession").values
        .asScala.foreach(_.setOperationManager(ours))
      logInfo("JDBC metadata calls (getSchemas, getTables, getColumns) list the HBase catalogs' tables too")
    } catch {
      case e @ (_: ReflectiveOperationException | _: ClassCastException) =>
        logWarning(
          "JDBC metadata calls list Spark's session catalog only: this Spark's Thrift server is not as expected",
          e
        )
    }

  private def field[T](owner: Class[_], target: AnyRef, name: String): T = {
    val field = owner.getDeclaredField(name)
    field.setAccessible(true)
    field.get(target).asInstanceOf[T]
  }
}
