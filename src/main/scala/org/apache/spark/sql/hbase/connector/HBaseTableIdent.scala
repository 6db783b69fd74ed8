// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableDefinitionStore, TableDefinitionStores}
import org.apache.spark.sql.hbase.facts.TableDefinitions

/**
 * An HBase table as our own statements name it: `t` is a table of the session's HBase
 * definitions, `c.t` and `c.c.t` (or `c.default.t`) a table of HBase catalog `c`.
 */
final case class HBaseTableIdent(catalog: Option[String], name: String) {

  /** The definitions this table is in; `statement` leads the error when `catalog` is not an HBase catalog. */
  def store(session: SparkSession, statement: String): TableDefinitionStore =
    catalog.fold(TableDefinitionStores.of(session))(HBaseSparkCatalog.storeOf(session, _, statement))

  override def toString: String = (catalog.toSeq :+ name).mkString(".")
}

object HBaseTableIdent {

  /** A name of a statement only we have (CREATE ... MAPPED BY, ADD COLUMN ... MAPPED BY, SHOW INDEXES); Left says what is wrong. */
  def parse(parts: Seq[String], statement: String): Either[String, HBaseTableIdent] = parts match {
    case Seq(name) => Right(HBaseTableIdent(None, name))
    case Seq(catalog, name) => Right(HBaseTableIdent(Some(catalog), name))
    case Seq(catalog, namespace, name) if HBaseSparkCatalog.namesTheNamespace(catalog, namespace) =>
      Right(HBaseTableIdent(Some(catalog), name))
    case Seq(catalog, namespace, _) =>
      Left(s"$statement: catalog '$catalog' has no namespace '$namespace'; HBase tables are in namespace $catalog")
    case _ => Left(s"$statement: '${parts.mkString(".")}' is not a table name: write t, catalog.t or catalog.catalog.t")
  }

  /**
   * The definitions and the table a statement Spark has too (ALTER TABLE ... DROP COLUMN, LOAD
   * DATA) names, or None when the name is Spark's: a one-part name that a Spark table or view has
   * or no HBase table has, or a name whose first part is not an HBase catalog (`db.t`,
   * `spark_catalog.db.t`). A table missing from an HBase catalog named first is an error.
   */
  def sparkFirst(
      session: SparkSession,
      parts: Seq[String],
      statement: String
  ): Option[(TableDefinitionStore, HBaseTableDef)] =
    parts match {
      case Seq(name) if SparkFallback.ownsName(session, name) => None
      case Seq(name) =>
        val store = TableDefinitionStores.of(session)
        TableDefinitions.get(store, name).map(store -> _)
      case catalog +: _ if HBaseSparkCatalog.named(session, catalog).isDefined =>
        val ident = parse(parts, statement).fold(message => throw new HBaseSQLException(message), identity)
        val store = ident.store(session, statement)
        Some(store -> TableDefinitions.get(
          store,
          ident.name
        ).getOrElse(throw new HBaseSQLException(s"$statement: HBase table '$ident' does not exist")))
      case _ => None
    }
}
