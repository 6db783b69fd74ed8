// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{Attribute, AttributeReference}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException}
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, RangeIndexDef}
import org.apache.spark.sql.hbase.connector.{HBaseTableIdent, RangeIndexes}
import org.apache.spark.sql.hbase.facts.IndexBuilds
import org.apache.spark.sql.types.{IntegerType, StringType}

/**
 * CREATE INDEX [IF NOT EXISTS] i ON [TABLE] t [USING minmax] (c, ...) [OPTIONS (chunkRows = n)].
 * The index is claimed in the catalog, then built; if that fails, the claim is withdrawn and the
 * built chunks removed.
 */
case class CreateRangeIndexCommand(
    tableName: HBaseTableIdent,
    indexName: String,
    indexType: Option[String],
    columns: Seq[String],
    options: Map[String, String],
    ifNotExists: Boolean
) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"CREATE INDEX $indexName ON $tableName"
    val catalog = tableName.store(session, statement)
    val store = RangeIndexes.store(session, catalog)
    val table = RangeIndexes.table(catalog, tableName, statement)
    if (table.index(indexName).isDefined) {
      if (ifNotExists) return Seq.empty
      throw new HBaseSQLException(s"$statement: table '${table.name}' already has an index '$indexName'")
    }
    val index = RangeIndexDef.fromStatement(table, indexName, indexType, columns, options)
    if (!catalog.replace(table, table.withIndex(index))) {
      throw new HBaseSQLException(s"$statement: table '${table.name}' was changed by another session; run it again")
    }
    try RangeIndexBuild.rebuild(session, catalog, store, table.name, indexName, statement)
    catch {
      case e: Throwable =>
        // Withdraws our claim only, never an index of that name another session made since.
        var withdrawn: Option[(HBaseTableDef, RangeIndexDef)] = None
        try RangeIndexes.update(catalog, table.name, statement) { now =>
            withdrawn = now.index(indexName).filter(i =>
              i.columns == index.columns && i.chunkRows == index.chunkRows && now.hbaseTable == table.hbaseTable
            ).map(now -> _)
            if (withdrawn.isDefined) now.withoutIndex(indexName) else now
          }
        catch { case _: HBaseSQLException => } // the table is gone, and our claim with it
        withdrawn.foreach { case (was, claimed) =>
          claimed.generation.foreach(g => store.dropChunks(was, claimed)(_ == g))
        }
        RangeIndexes.releaseGuardIfUnused(catalog, table)
        throw e
    }
    Seq.empty
  }
}

/** DROP INDEX [IF EXISTS] i ON [TABLE] t: forgets the index and its statistics. */
case class DropRangeIndexCommand(tableName: HBaseTableIdent, indexName: String, ifExists: Boolean)
    extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"DROP INDEX $indexName ON $tableName"
    val catalog = tableName.store(session, statement)
    val name = RangeIndexes.table(catalog, tableName, statement).name
    // The index removed is the one the definition had when it was swapped, which the chunks go with.
    var removed: Option[(HBaseTableDef, RangeIndexDef)] = None
    RangeIndexes.update(catalog, name, statement) { now =>
      removed = now.index(indexName).map(now -> _)
      now.withoutIndex(indexName)
    }
    removed match {
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

/** SHOW INDEXES ON t: each range index, its columns, chunks and how many the planner may use now. */
case class ShowRangeIndexesCommand(tableName: HBaseTableIdent) extends LeafRunnableCommand {

  override val output: Seq[Attribute] = Seq(
    AttributeReference("name", StringType, nullable = false)(),
    AttributeReference("type", StringType, nullable = false)(),
    AttributeReference("columns", StringType, nullable = false)(),
    AttributeReference("chunkRows", IntegerType, nullable = false)(),
    AttributeReference("chunks", IntegerType, nullable = false)(),
    AttributeReference("trustedChunks", IntegerType, nullable = false)(),
    AttributeReference("state", StringType, nullable = false)()
  )

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"SHOW INDEXES ON $tableName"
    val catalog = tableName.store(session, statement)
    val table = RangeIndexes.table(catalog, tableName, statement)
    val store = RangeIndexes.store(session, catalog)
    val skew = session.sessionState.conf.getConf(HBaseSQLConf.IndexClockSkew)
    table.indexes.map { index =>
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
        state
      )
    }
  }
}

/** ANALYZE TABLE t COMPUTE STATISTICS [FOR COLUMNS ...]: rebuilds the table's range indexes. */
case class AnalyzeHBaseTableCommand(tableName: HBaseTableIdent) extends LeafRunnableCommand {

  override def run(session: SparkSession): Seq[Row] = {
    val statement = s"ANALYZE TABLE $tableName"
    val catalog = tableName.store(session, statement)
    val store = RangeIndexes.store(session, catalog)
    RangeIndexes.table(catalog, tableName, statement).indexes.foreach { index =>
      RangeIndexBuild.rebuild(session, catalog, store, tableName.name, index.name, statement)
    }
    Seq.empty
  }
}
