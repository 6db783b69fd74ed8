// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{
  ResolvedIdentifier, ResolvedNamespace, ResolvedTable, UnresolvedTableOrView
}
import org.apache.spark.sql.catalyst.plans.logical.{
  CreateNamespace, CreateTable, CreateTableAsSelect, DescribeColumn, DescribeRelation, DropTable, LocalRelation,
  LogicalPlan, ShowCreateTable, TableSpec
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.CatalogManager
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.commands.{
  CreateHBaseTableAsSelectCommand, CreateHBaseTableCommand, DescribeMappedColumnCommand, DescribeMappedTableCommand,
  DropHBaseTableCommand, ShowCreateMappedTableCommand
}
import org.apache.spark.sql.hbase.connector.{HBaseCatalogTable, HBaseSparkCatalog, HBaseTableOptions}
import org.apache.spark.sql.hbase.facts.TableDefinitions

/**
 * Spark's own DESCRIBE (of a table or a column), SHOW CREATE TABLE and DROP TABLE of an HBase
 * table. Through an HBase catalog (`hbase.t`), DROP is the catalog's, and DESCRIBE and SHOW CREATE
 * TABLE show our mapping. A one-part name is Spark's first: only when Spark's catalog has no
 * table or view of that name does it name the HBase table, so these statements ask HBase nothing
 * about Spark's own tables.
 *
 * Also Spark's CREATE TABLE [AS SELECT] of an HBase catalog, with the mapping in its OPTIONS
 * ([[HBaseTableOptions]]), and CREATE NAMESPACE IF NOT EXISTS of the catalog's one namespace (or
 * of the catalog itself, `CREATE SCHEMA IF NOT EXISTS hbase`), which has nothing to do: tools
 * such as dbt issue it before they create tables.
 */
case class ResolveHBaseCatalogStatements(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case DescribeRelation(ResolvedTable(_, _, table: HBaseCatalogTable, _), _, _) =>
      DescribeMappedTableCommand(table.definition, table.cluster)
    case describe @ DescribeRelation(UnresolvedTableOrView(Seq(name), _, _, _), _, _) =>
      val catalog = TableDefinitionStores.of(session)
      TableDefinitions.get(catalog, name).map(DescribeMappedTableCommand(_, catalog.cluster)).getOrElse(describe)
    case DescribeColumn(ResolvedTable(_, _, table: HBaseCatalogTable, _), column, _, output) =>
      DescribeMappedColumnCommand(
        table.definition,
        table.cluster,
        DescribeColumn.extractColumnNameParts(column),
        output
      )
    case describe @ DescribeColumn(UnresolvedTableOrView(Seq(name), _, _, _), column, _, output) =>
      val catalog = TableDefinitionStores.of(session)
      TableDefinitions.get(catalog, name).map(
        DescribeMappedColumnCommand(_, catalog.cluster, DescribeColumn.extractColumnNameParts(column), output)
      ).getOrElse(describe)
    case ShowCreateTable(ResolvedTable(_, _, table: HBaseCatalogTable, _), _, _) =>
      ShowCreateMappedTableCommand(table.definition, table.cluster)
    case show @ ShowCreateTable(UnresolvedTableOrView(Seq(name), _, _, _), _, _) =>
      val catalog = TableDefinitionStores.of(session)
      TableDefinitions.get(catalog, name).map(ShowCreateMappedTableCommand(_, catalog.cluster)).getOrElse(show)
    case drop @ DropTable(ResolvedIdentifier(catalog, ident), ifExists, purge)
        if catalog.name() == CatalogManager.SESSION_CATALOG_NAME && ident.namespace().toSeq == currentDatabase &&
          !session.sessionState.catalog.tableExists(TableIdentifier(ident.name(), Some(ident.namespace().head))) =>
      // A broken entry too, so that DROP TABLE can remove it.
      if (TableDefinitions.entry(TableDefinitionStores.of(session), ident.name()).isDefined)
        DropHBaseTableCommand(ident.name(), ifExists, purge)
      else drop
    case CreateTable(
          ResolvedIdentifier(catalog: HBaseSparkCatalog, ident),
          columns,
          partitioning,
          spec: TableSpec,
          ifNotExists
        )
        if columns.forall(_.resolved) =>
      val definition = HBaseTableOptions.definition(
        catalog.name(),
        ident.name(),
        columns.map(c => (c.name, c.dataType, !c.nullable, c.comment)),
        partitioning,
        spec
      )
      CreateHBaseTableCommand(
        definition,
        ifNotExists,
        catalogName = Some(catalog.name()),
        layoutNamed = HBaseTableOptions.namesLayout(spec)
      )
    case CreateTableAsSelect(
          ResolvedIdentifier(catalog: HBaseSparkCatalog, ident),
          partitioning,
          query,
          spec: TableSpec,
          _,
          ifNotExists,
          _
        )
        if query.resolved =>
      val columns = query.schema.map(f => (f.name, f.dataType, false, f.getComment()))
      val definition = HBaseTableOptions.definition(catalog.name(), ident.name(), columns, partitioning, spec)
      CreateHBaseTableAsSelectCommand(
        CreateHBaseTableCommand(
          definition,
          ifNotExists,
          catalogName = Some(catalog.name()),
          layoutNamed = HBaseTableOptions.namesLayout(spec)
        ),
        query
      )
    case CreateNamespace(ResolvedNamespace(catalog: HBaseSparkCatalog, namespace, _), ifNotExists, _)
        if catalog.isOwnNamespace(namespace) =>
      if (!ifNotExists) {
        throw new HBaseSQLException(s"CREATE NAMESPACE ${(catalog.name() +: namespace).mkString(".")}: it exists: " +
          s"it is the one namespace of HBase catalog '${catalog.name()}'")
      }
      LocalRelation()
  }

  private def currentDatabase: Seq[String] = Seq(session.sessionState.catalog.getCurrentDatabase)
}
