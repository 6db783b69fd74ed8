// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, RangeIndexes}
import org.apache.spark.sql.hbase.facts.IndexBuilds
import org.apache.spark.sql.hbase.globalindex.GlobalIndexes
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef, RangeIndexDef}
import org.apache.spark.sql.types.{IntegerType, LongType, StringType}

/**
 * DROP INDEX [IF EXISTS] i ON [TABLE] t: forgets a range index and its statistics, or a global
 * index: the region servers stop maintaining it, and its HBase table is deleted.
 */
case class DropIndexCommand(tableName: HBaseTableIdent, indexName: String, ifExists: Boolean)
    extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"DROP INDEX $indexName ON $tableName"
    val catalog = tableName.store(session, statement)
    val name = RangeIndexes.table(catalog, tableName, statement).name
    var removedGlobal: Option[(HBaseTableDef, GlobalIndexDef)] = None
    // The index removed is the one the definition had when it was swapped, which the chunks go with.
    var removed: Option[(HBaseTableDef, RangeIndexDef)] = None
    RangeIndexes.update(catalog, name, statement) { now =>
      removed = now.index(indexName).map(now -> _)
      removedGlobal = now.globalIndex(indexName).map(now -> _)
      now.withoutIndex(indexName).withoutGlobalIndex(indexName)
    }
    removedGlobal.foreach { case (table, index) => GlobalIndexes.forget(catalog, table, Seq(index), statement) }
    removed match {
      case None if removedGlobal.isDefined =>
      case None if ifExists =>
      case None => throw new HBaseSQLException(s"$statement: table '$name' has no index '$indexName'")
      case Some((table, index)) =>
        // Its published build only: a build still running removes its own chunks when it cannot publish.
        index.generation.foreach(g => RangeIndexes.store(session, catalog).dropChunks(table, index)(_ == g))
        RangeIndexes.releaseGuardIfUnused(catalog, table)
    }
    Seq.empty
  }
}

/**
 * SHOW INDEXES ON t: each index, its type and columns; for a range index its chunks and how many
 * the planner may use now, for a global index its covered columns and the rows its build wrote.
 */
case class ShowIndexesCommand(tableName: HBaseTableIdent) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = Seq(
    AttributeReference("name", StringType, nullable = false)(),
    AttributeReference("type", StringType, nullable = false)(),
    AttributeReference("columns", StringType, nullable = false)(),
    AttributeReference("chunkRows", IntegerType)(),
    AttributeReference("chunks", IntegerType)(),
    AttributeReference("trustedChunks", IntegerType)(),
    AttributeReference("state", StringType, nullable = false)(),
    AttributeReference("covered", StringType)(),
    AttributeReference("rows", LongType)()
  )

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"SHOW INDEXES ON $tableName"
    val catalog = tableName.store(session, statement)
    val table = RangeIndexes.table(catalog, tableName, statement)
    val store = RangeIndexes.store(session, catalog)
    val skew = session.sessionState.conf.getConf(HBaseSQLConf.IndexClockSkew)
    val ranges = table.indexes.map { index =>
      val chunks = IndexBuilds.usable(store, table, index, skew)
      val state =
        if (!index.isReady) "building"
        else if (chunks.untrusted == 0) "ready"
        else
          s"ready; ${chunks.untrusted} chunks written since the last build are read in full (ANALYZE TABLE ${table.name} COMPUTE STATISTICS rebuilds it)"
      Row(
        index.name,
        RangeIndexDef.Type,
        index.columns.mkString(", "),
        index.chunkRows,
        chunks.total,
        chunks.trusted.size,
        state,
        null,
        null
      )
    }
    val globals = table.globalIndexes.map { index =>
      Row(
        index.name,
        GlobalIndexDef.Type,
        index.columns.mkString(", "),
        null,
        null,
        null,
        index.state.name,
        index.covered.mkString(", "),
        index.builtRows.map(Long.box).orNull
      )
    }
    ranges ++ globals
  }
}
