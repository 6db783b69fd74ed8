package org.apache.spark.sql.hbase.planning

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.TableIdentifier
import org.apache.spark.sql.catalyst.analysis.{ResolvedIdentifier, ResolvedTable, UnresolvedTableOrView}
import org.apache.spark.sql.catalyst.plans.logical.{DescribeRelation, DropTable, LogicalPlan}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.connector.catalog.CatalogManager
import org.apache.spark.sql.hbase.catalog.SessionCatalogs
import org.apache.spark.sql.hbase.connector.HBaseCatalogTable
import org.apache.spark.sql.hbase.execution.command.{DescribeMappedTableCommand, DropHBaseTableCommand}

/**
 * Spark's own DESCRIBE and DROP TABLE of an HBase table. Through an HBase catalog (`hbase.t`),
 * DROP is the catalog's and DESCRIBE shows our mapping. A one-part name is Spark's first: only
 * when Spark's catalog has no table or view of that name does it name the HBase table, so these
 * statements ask HBase nothing about Spark's own tables.
 */
case class ResolveHBaseCatalogStatements(session: SparkSession) extends Rule[LogicalPlan] {
  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case DescribeRelation(ResolvedTable(_, _, table: HBaseCatalogTable, _), _, _) =>
      DescribeMappedTableCommand(table.definition, table.cluster)
    case describe @ DescribeRelation(UnresolvedTableOrView(Seq(name), _, _, _), _, _) =>
      val catalog = SessionCatalogs.of(session)
      catalog.get(name).map(DescribeMappedTableCommand(_, catalog.cluster)).getOrElse(describe)
    case drop @ DropTable(ResolvedIdentifier(catalog, ident), ifExists, _)
        if catalog.name() == CatalogManager.SESSION_CATALOG_NAME && ident.namespace().toSeq == currentDatabase &&
          !session.sessionState.catalog.tableExists(TableIdentifier(ident.name(), Some(ident.namespace().head))) =>
      // A broken entry too, so that DROP TABLE can remove it.
      if (SessionCatalogs.of(session).entry(ident.name()).isDefined) DropHBaseTableCommand(ident.name(), ifExists)
      else drop
  }

  private def currentDatabase: Seq[String] = Seq(session.sessionState.catalog.getCurrentDatabase)
}
