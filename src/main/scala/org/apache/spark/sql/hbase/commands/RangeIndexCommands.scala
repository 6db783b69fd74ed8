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
    if (table.hasIndexNamed(indexName)) {
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
