// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import java.util

import scala.jdk.CollectionConverters._

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{NoSuchNamespaceException, NoSuchTableException}
import org.apache.spark.sql.connector.catalog._
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{ReadableEntry, TableDefinitionStore, TableDefinitionStores}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, TableRights}
import org.apache.spark.sql.hbase.facts.TableDefinitions
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * Spark's name for the HBase tables of one cluster:
 * `spark.sql.catalog.hbase=org.apache.spark.sql.hbase.connector.HBaseSparkCatalog` makes
 * `hbase.t` and `hbase.default.t` name the HBase table `t`, for SELECT, INSERT, DELETE, UPDATE,
 * DESCRIBE, DROP TABLE, SHOW TABLES IN hbase and USE hbase. Its tables are those of the session's
 * cluster unless its options name another: `spark.sql.catalog.prod.hbase.zookeeper.quorum=...`
 * (any `hbase.*` or `zookeeper.*` HBase property) points catalog `prod` at a second cluster.
 *
 * Its tables are one flat set, in one namespace that carries the catalog's own name: SHOW TABLES
 * IN hbase lists `(hbase, t)`, so that `namespace.table` as listed names the table from whatever
 * catalog is current (dbt and BI tools build names that way), as `hbase.hbase.t` does from
 * Spark's side. `hbase.default.t` still works: `default` was the namespace's name before.
 */
class HBaseSparkCatalog extends TableCatalog with SupportsNamespaces {
  private var catalogName: String = _
  private var clusterSettings: Map[String, String] = Map.empty
  private var catalogTable: Option[String] = None

  override def initialize(name: String, options: CaseInsensitiveStringMap): Unit = {
    catalogName = name
    val settings = options.asCaseSensitiveMap().asScala.toMap
    clusterSettings = settings.filter { case (k, _) => k.startsWith("hbase.") || k.startsWith("zookeeper.") }
    catalogTable =
      settings.collectFirst { case (k, v) if k.equalsIgnoreCase(HBaseSparkCatalog.CatalogTableOption) => v }
  }

  override def name(): String = catalogName

  /** The definitions of this catalog's cluster; the session's settings, overlaid with the catalog's own. */
  def store: TableDefinitionStore = {
    val session = SparkSession.active
    val cluster = HBaseClusterConf(HBaseClusterConf.fromSession(session).settings ++ clusterSettings)
    TableDefinitionStores.of(cluster, catalogTable.getOrElse(TableDefinitionStores.metaTable(session)))
  }

  /** Does `namespace` name the one namespace: by its name, by its old name `default`, or left out? */
  def isOwnNamespace(namespace: Seq[String]): Boolean =
    namespace.isEmpty || (namespace.length == 1 && HBaseSparkCatalog.namesTheNamespace(catalogName, namespace.head))

  private def isDefault(namespace: Array[String]): Boolean = isOwnNamespace(namespace.toSeq)

  private def ownNamespace: Array[String] = Array(catalogName)

  private def requireNamespace(namespace: Array[String]): Unit =
    if (!isDefault(namespace)) throw new NoSuchNamespaceException(Array(catalogName) ++ namespace)

  /**
   * The tables whose HBase tables the user of the session's connections may read (all of them
   * where HBase checks no rights), and the entries that cannot be read, so that DROP TABLE finds them.
   */
  override def listTables(namespace: Array[String]): Array[Identifier] = {
    requireNamespace(namespace)
    val catalog = store
    val entries = catalog.entries()
    val readable = TableRights.readable(
      catalog.cluster,
      entries.collect { case ReadableEntry(definition) => definition.hbaseTable.hbase }.distinct
    )
    entries.filter {
      case ReadableEntry(definition) => readable(definition.hbaseTable.hbase)
      case _ => true
    }.map(t => Identifier.of(ownNamespace, t.name)).toArray
  }

  /** A broken entry exists too, so that DROP TABLE can remove it. */
  override def tableExists(ident: Identifier): Boolean =
    isDefault(ident.namespace()) && TableDefinitions.entry(store, ident.name()).isDefined

  override def loadTable(ident: Identifier): Table = load(ident, asOf = None)

  override def loadTable(ident: Identifier, timestamp: Long): Table = load(ident, Some(Math.floorDiv(timestamp, 1000L)))

  override def loadTable(ident: Identifier, version: String): Table = {
    val table = load(ident, None)
    throw new HBaseSQLException(s"VERSION AS OF is not supported on HBase table '${table.name()}': " +
      "HBase keeps the versions of each cell by time; read it as it was with TIMESTAMP AS OF")
  }

  private def load(ident: Identifier, asOf: Option[Long]): HBaseCatalogTable = {
    val catalog = if (isDefault(ident.namespace())) Some(store) else None
    catalog.flatMap(c => TableDefinitions.get(c, ident.name()).map(HBaseCatalogTable(_, c.cluster, asOf)))
      .getOrElse(throw new NoSuchTableException(catalogName +: ident.namespace().toSeq :+ ident.name()))
  }

  /** Spark's CREATE TABLE of this catalog is planned as our own command (HBaseTableOptions); this is any other way in. */
  override def createTable(
      ident: Identifier,
      schema: StructType,
      partitions: Array[Transform],
      properties: util.Map[String, String]
  ): Table =
    throw new HBaseSQLException(s"CREATE TABLE $catalogName.${ident.name()}: an HBase table needs its mapping; " +
      s"write CREATE TABLE $catalogName.${ident.name()} (..., PRIMARY KEY (...)) MAPPED BY (htable, COLS=[...]), " +
      s"or CREATE TABLE $catalogName.${ident.name()} ... USING hbase OPTIONS (primaryKey 'k1, k2')")

  override def alterTable(ident: Identifier, changes: TableChange*): Table =
    throw new HBaseSQLException(s"ALTER TABLE $catalogName.${ident.name()}: HBase tables change with " +
      "ALTER TABLE t ADD COLUMN c TYPE MAPPED BY (c = family.qualifier) and ALTER TABLE t DROP COLUMN c")

  override def dropTable(ident: Identifier): Boolean =
    isDefault(ident.namespace()) && TableDrops.drop(SparkSession.active, store, ident.name())

  /** DROP TABLE ... PURGE: the HBase table goes too, when CREATE TABLE made it. */
  override def purgeTable(ident: Identifier): Boolean =
    isDefault(ident.namespace()) && TableDrops.drop(SparkSession.active, store, ident.name(), purge = true)

  override def renameTable(oldIdent: Identifier, newIdent: Identifier): Unit =
    throw new HBaseSQLException(
      s"ALTER TABLE $catalogName.${oldIdent.name()} RENAME: HBase tables cannot be renamed; " +
        "DROP TABLE (which keeps the HBase data) and CREATE TABLE ... MAPPED BY the same HBase table"
    )

  override def listNamespaces(): Array[Array[String]] = Array(ownNamespace)

  override def listNamespaces(namespace: Array[String]): Array[Array[String]] = {
    requireNamespace(namespace)
    Array.empty
  }

  override def loadNamespaceMetadata(namespace: Array[String]): util.Map[String, String] = {
    requireNamespace(namespace)
    new util.HashMap[String, String]()
  }

  override def createNamespace(namespace: Array[String], metadata: util.Map[String, String]): Unit =
    throw new HBaseSQLException(s"CREATE NAMESPACE ${(catalogName +: namespace).mkString(".")}: the HBase tables of " +
      s"catalog '$catalogName' are all in its one namespace, $catalogName")

  override def alterNamespace(namespace: Array[String], changes: NamespaceChange*): Unit =
    throw new HBaseSQLException(s"ALTER NAMESPACE ${(catalogName +: namespace).mkString(".")}: namespaces of catalog " +
      s"'$catalogName' have no properties to change")

  override def dropNamespace(namespace: Array[String], cascade: Boolean): Boolean =
    throw new HBaseSQLException(s"DROP NAMESPACE ${(catalogName +: namespace).mkString(".")}: the one namespace of " +
      s"catalog '$catalogName' cannot be dropped")

  override def defaultNamespace(): Array[String] = ownNamespace
}

object HBaseSparkCatalog {

  /** The one namespace's name before it took the catalog's; still accepted. */
  val FormerNamespace = "default"

  /** Does `part` name the one namespace of catalog `catalog`? */
  def namesTheNamespace(catalog: String, part: String): Boolean =
    part.equalsIgnoreCase(catalog) || part.equalsIgnoreCase(FormerNamespace)

  val CatalogTableOption = "catalogTable"

  /** The HBase catalog registered as `name`, if that catalog is one. */
  def named(session: SparkSession, name: String): Option[HBaseSparkCatalog] = {
    val manager = session.sessionState.catalogManager
    if (!manager.isCatalogRegistered(name)) None
    else manager.catalog(name) match {
      case hbase: HBaseSparkCatalog => Some(hbase)
      case _ => None
    }
  }

  /** The definitions of the HBase catalog registered as `name`; `statement` leads the error when there is none. */
  def storeOf(session: SparkSession, name: String, statement: String): TableDefinitionStore =
    named(
      session,
      name
    ).map(_.store).getOrElse(throw new HBaseSQLException(s"$statement: '$name' is not an HBase catalog; " +
      s"register one with spark.sql.catalog.$name=${classOf[HBaseSparkCatalog].getName}"))
}
