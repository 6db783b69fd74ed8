package org.apache.spark.sql.hbase.execution.command

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.util.StringUtils
import org.apache.spark.sql.connector.catalog.CatalogManager
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.catalog.SessionCatalogs
import org.apache.spark.sql.types.{BooleanType, StringType}

/**
 * SHOW TABLES in Spark's session catalog: Spark's own tables, then the HBase tables. These have
 * an empty namespace and are not temporary: they live in our catalog and are named by their bare
 * name. In another current catalog (after USE hbase, say) it is Spark's SHOW TABLES.
 */
case class ShowHBaseTablesCommand(pattern: Option[String], sparkPlan: LogicalPlan) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = Seq(
    AttributeReference("namespace", StringType, nullable = false)(),
    AttributeReference("tableName", StringType, nullable = false)(),
    AttributeReference("isTemporary", BooleanType, nullable = false)())

  override def run(session: SparkSession): Seq[Row] = {
    val sparkTables = SparkFallback.run(session, sparkPlan).map(r => Row(r.getString(0), r.getString(1), r.getBoolean(2)))
    if (session.sessionState.catalogManager.currentCatalog.name() != CatalogManager.SESSION_CATALOG_NAME) return sparkTables
    val names = SessionCatalogs.of(session).list().map(_.name).sorted
    val hbaseTables = pattern.fold(names)(p => StringUtils.filterPattern(names, p)).map(Row(ShowHBaseTablesCommand.Namespace, _, false))
    sparkTables ++ hbaseTables
  }
}

object ShowHBaseTablesCommand {
  val Namespace = ""
}
