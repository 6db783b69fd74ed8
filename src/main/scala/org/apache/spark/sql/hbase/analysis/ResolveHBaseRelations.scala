// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.analysis

import org.apache.spark.sql.hbase.logical._
import org.apache.spark.sql.hbase.source.HBaseSourceRelation
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.{AsOfTimestamp, RelationTimeTravel, TimeTravelSpec, UnresolvedRelation}
import org.apache.spark.sql.catalyst.expressions.{AttributeReference, Expression}
import org.apache.spark.sql.catalyst.plans.logical.{
  AppendData, InsertIntoStatement, LogicalPlan, OverwriteByExpression, OverwritePartitionsDynamic, SubqueryAlias,
  V2WriteCommand
}
import org.apache.spark.sql.catalyst.rules.Rule
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.TableDefinitionStores
import org.apache.spark.sql.hbase.commands.InsertIntoHBaseTableCommand
import org.apache.spark.sql.hbase.connector.HBaseCatalogTable
import org.apache.spark.sql.hbase.facts.{HBaseTableSizes, IndexBuilds, TableDefinitions}
import org.apache.spark.sql.hbase.rangeindex.{RangeIndexStore, TableStatistics}

/**
 * Resolves single-part table names that Spark's own catalog did not know to our HBase tables,
 * read as of a time under TIMESTAMP AS OF, and turns an INSERT into one of them into our write
 * command once its query is resolved. Spark's catalog goes first, so a Spark table or view of the
 * same name wins. Tables of an HBase catalog (`hbase.t`), which Spark resolves itself, become the
 * same relation and write command.
 */
case class ResolveHBaseRelations(session: SparkSession) extends Rule[LogicalPlan] {

  override def apply(plan: LogicalPlan): LogicalPlan = plan.resolveOperatorsUp {
    case insert: InsertIntoStatement => insert.table match {
        case u: UnresolvedRelation => lookup(u).map(r => insert.copy(table = r)).getOrElse(insert)
        case r: HBaseRelation if insert.query.resolved =>
          val table = r.table.name
          if (insert.overwrite)
            throw new HBaseSQLException(s"INSERT OVERWRITE is not supported on HBase table '$table'; use INSERT INTO")
          if (insert.partitionSpec.nonEmpty)
            throw new HBaseSQLException(s"HBase table '$table' has no partitions; remove PARTITION (...)")
          InsertIntoHBaseTableCommand(r, alignQuery(r, insert.query, insert.userSpecifiedCols))
        case _ => insert
      }
    // Tables named through an HBase catalog (hbase.t): Spark has planned the write, by position
    // or by the names given, and left lining up the columns to us.
    case append: AppendData if append.query.resolved && isCatalogTable(append.table) =>
      val relation = catalogTableRelation(append.table.asInstanceOf[DataSourceV2Relation])
      InsertIntoHBaseTableCommand(
        relation,
        alignQuery(relation, append.query, if (append.isByName) append.query.output.map(_.name) else Nil)
      )
    case overwrite: V2WriteCommand if isOverwrite(overwrite) && isCatalogTable(overwrite.table) =>
      val table = overwrite.table.asInstanceOf[DataSourceV2Relation].table.name()
      throw new HBaseSQLException(s"INSERT OVERWRITE is not supported on HBase table '$table'; use INSERT INTO")
    case v2: DataSourceV2Relation if isCatalogTable(v2) => catalogTableRelation(v2)
    // Named as Spark names its tables, so that `t.c` resolves.
    case u: UnresolvedRelation => lookup(u).map(named(u, _)).getOrElse(u)
    case travel @ RelationTimeTravel(u: UnresolvedRelation, timestamp, version) if timestamp.forall(_.resolved) =>
      lookup(u).map { relation =>
        if (version.isDefined) {
          throw new HBaseSQLException(s"VERSION AS OF is not supported on HBase table '${relation.table.name}': " +
            "HBase keeps the versions of each cell by time; read it as it was with TIMESTAMP AS OF")
        }
        named(u, asOf(relation, asOfMillis(timestamp)))
      }.getOrElse(travel)
    case l: LogicalRelation if l.relation.isInstanceOf[HBaseSourceRelation] =>
      val source = l.relation.asInstanceOf[HBaseSourceRelation]
      val relation =
        sized(HBaseRelation(source.table, source.cluster, l.output.map(_.asInstanceOf[AttributeReference])))
      source.asOfMillis.fold(relation)(asOf(relation, _))
  }

  private def named(u: UnresolvedRelation, relation: HBaseRelation): LogicalPlan =
    SubqueryAlias(u.multipartIdentifier.last, relation)

  /** Epoch milliseconds of a TIMESTAMP AS OF expression, evaluated and checked as Spark does for its tables. */
  private def asOfMillis(timestamp: Option[Expression]): Long =
    TimeTravelSpec.create(timestamp, None, conf.sessionLocalTimeZone) match {
      case Some(AsOfTimestamp(micros)) => Math.floorDiv(micros, 1000L)
      case other => throw new IllegalStateException(s"TIMESTAMP AS OF gave $other")
    }

  /** What the range indexes know is about the rows as they are now. */
  private def asOf(relation: HBaseRelation, millis: Long): HBaseRelation =
    relation.copy(asOf = Some(millis), statistics = None)

  /** HBase tables have one-part names. */
  private def lookup(u: UnresolvedRelation): Option[HBaseRelation] = u.multipartIdentifier match {
    case Seq(name) =>
      val catalog = TableDefinitionStores.of(session)
      TableDefinitions.get(catalog, name).map(t => sized(HBaseRelation(t, catalog.cluster)))
    case _ => None
  }

  /** The relation with what Spark's optimizer may know of it: its size, and what its built range indexes hold. */
  private def sized(relation: HBaseRelation): HBaseRelation = {
    val table = relation.table
    val store = RangeIndexStore.of(relation.cluster, conf.getConf(HBaseSQLConf.IndexTable))
    val builds = table.indexes.flatMap(i => i.generation.map(g => (g, i))).sortBy(-_._1)
      .map { case (g, i) => IndexBuilds.chunks(store, table, i, g) }
    relation.copy(
      sizeInBytes = HBaseTableSizes.cached(relation.cluster, table.hbaseTable),
      statistics = TableStatistics.of(table, builds)
    )
  }

  private def isOverwrite(write: V2WriteCommand): Boolean = write match {
    case _: OverwriteByExpression | _: OverwritePartitionsDynamic => true
    case _ => false
  }

  private def isCatalogTable(plan: LogicalPlan): Boolean = plan match {
    case v2: DataSourceV2Relation => v2.table.isInstanceOf[HBaseCatalogTable]
    case _ => false
  }

  /** A table of an HBase catalog as Spark resolved it, as our relation. */
  private def catalogTableRelation(v2: DataSourceV2Relation): HBaseRelation = {
    val table = v2.table.asInstanceOf[HBaseCatalogTable]
    val relation = sized(HBaseRelation(table.definition, table.cluster, v2.output))
    table.asOf.fold(relation)(asOf(relation, _))
  }

  private def alignQuery(
      relation: HBaseRelation,
      insertQuery: LogicalPlan,
      userSpecifiedCols: Seq[String]
  ): LogicalPlan = InsertColumns.align(relation, insertQuery, userSpecifiedCols, conf)
}
