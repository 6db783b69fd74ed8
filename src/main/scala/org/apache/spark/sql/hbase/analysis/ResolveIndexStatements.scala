// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{ResolvedTable, UnresolvedTable, UnresolvedTableOrView}
import org.apache.spark.sql.catalyst.plans.logical.{AnalyzeColumn, AnalyzeTable, CreateIndex, DropIndex, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.commands.{
  AnalyzeHBaseTableCommand, CreateGlobalIndexCommand, CreateRangeIndexCommand, DropIndexCommand
}
import org.apache.spark.sql.hbase.connector.{HBaseCatalogTable, HBaseSparkCatalog, HBaseTableIdent}
import org.apache.spark.sql.hbase.facts.TableDefinitions
import org.apache.spark.sql.hbase.metadata.GlobalIndexDef

/**
 * Spark parses CREATE INDEX, DROP INDEX and ANALYZE TABLE itself; when the table they name is
 * one of ours (and not Spark's, which resolves first), they become our index commands: USING
 * global makes a global index, any other type a range index.
 */
case class ResolveIndexStatements(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case CreateIndex(HBaseTable(table), indexName, indexType, ifNotExists, columns, properties) =>
      columns.collectFirst { case (field, options) if options.nonEmpty => field.name.mkString(".") }.foreach { c =>
        throw new HBaseSQLException(
          s"CREATE INDEX $indexName ON $table: column '$c' takes no options; give OPTIONS (...) after the column list"
        )
      }
      val names = columns.map { case (field, _) =>
        field.name match {
          case Seq(name) => name
          case parts => throw new HBaseSQLException(
              s"CREATE INDEX $indexName ON $table: '${parts.mkString(".")}' is not a column of an HBase table"
            )
        }
      }
      if (GlobalIndexDef.Type.equalsIgnoreCase(indexType))
        CreateGlobalIndexCommand(table, indexName, names, properties, ifNotExists)
      else
        CreateRangeIndexCommand(table, indexName, Option(indexType).filter(_.nonEmpty), names, properties, ifNotExists)
    case DropIndex(HBaseTable(table), indexName, ifExists) => DropIndexCommand(table, indexName, ifExists)
    case AnalyzeTable(HBaseTable(table), partitionSpec, _) =>
      if (partitionSpec.nonEmpty)
        throw new HBaseSQLException(s"ANALYZE TABLE $table: HBase tables have no partitions; remove PARTITION (...)")
      AnalyzeHBaseTableCommand(table)
    case AnalyzeColumn(HBaseTable(table), _, _) => AnalyzeHBaseTableCommand(table)
  }

  /** A table of an HBase catalog (`hbase.t`), or a one-part name Spark did not resolve and the session's HBase tables have. */
  private object HBaseTable {
    def unapply(plan: LogicalPlan): Option[HBaseTableIdent] = plan match {
      case ResolvedTable(catalog: HBaseSparkCatalog, _, table: HBaseCatalogTable, _) =>
        Some(HBaseTableIdent(Some(catalog.name()), table.name()))
      case UnresolvedTable(Seq(name), _, _) => known(name)
      case UnresolvedTableOrView(Seq(name), _, _, _) => known(name)
      case _ => None
    }

    private def known(name: String): Option[HBaseTableIdent] =
      TableDefinitions.get(TableDefinitionStores.of(session), name).map(table => HBaseTableIdent(None, table.name))
  }
}
