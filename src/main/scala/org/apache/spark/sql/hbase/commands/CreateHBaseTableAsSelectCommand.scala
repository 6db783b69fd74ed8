// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.util.control.NonFatal

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.catalyst.util.QuotingUtils.quoteIdentifier
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, TableDrops}

/**
 * CREATE TABLE catalog.t USING hbase OPTIONS (...) AS SELECT: creates the table as `create`
 * says, then writes the query's rows as INSERT INTO catalog.t does. If the write fails, the
 * statement leaves nothing behind: the mapping is dropped, and the HBase table too when this
 * statement created it (as DROP TABLE ... PURGE would). With IF NOT EXISTS and the table there
 * already, it does nothing.
 */
case class CreateHBaseTableAsSelectCommand(create: CreateHBaseTableCommand, query: LogicalPlan)
    extends LeafRunnableCommand {

  override def innerChildren: Seq[QueryPlan[_]] = Seq(query)

  override def run(session: SparkSession): Seq[Row] = {
    val ident = HBaseTableIdent(create.catalogName, create.definition.name)
    val store = ident.store(session, s"CREATE TABLE $ident")
    if (create.create(session)) {
      try {
        classic.Dataset.ofRows(session.asInstanceOf[classic.SparkSession], query)
          .writeTo((ident.catalog.toSeq :+ ident.name).map(quoteIdentifier).mkString(".")).append()
      } catch {
        case NonFatal(e) =>
          try {
            val made = store.get(ident.name).exists(_.ownsHBaseTable)
            TableDrops.drop(session, store, ident.name, purge = made)
          } catch { case NonFatal(cleanup) => e.addSuppressed(cleanup) }
          throw e
      }
    }
    Seq.empty
  }
}
