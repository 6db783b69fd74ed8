// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.jdk.CollectionConverters._
import scala.util.{Success, Try}
import scala.util.control.NonFatal

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.common.{HBaseSQLConf, HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, RangeIndexDef, TableDefinitionStore}
import org.apache.spark.sql.hbase.codec.{RowCodec, RowRange}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.execution.HBaseCalls
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.rangeindex.{ChunkStats, ColumnStatsBuilder, RangeIndexStore, WriteGuard}

/**
 * Builds a range index with one Spark job: a task per region reads the region's rows in key
 * order, cuts them into chunks of `chunkRows` rows that tile the region's key range, and writes
 * each chunk's statistics. The build's generation is the server time before any row was read,
 * and it becomes the one the planner reads only once every chunk is written.
 */
object RangeIndexBuild {

  /** Builds `indexName` of `tableName` anew and publishes it; returns the published definition. */
  def rebuild(
      session: SparkSession,
      catalog: TableDefinitionStore,
      store: RangeIndexStore,
      tableName: String,
      indexName: String,
      statement: String
  ): RangeIndexDef = {
    def dropped(cause: Option[Throwable]) = new HBaseSQLException(s"$statement: table '$tableName' was dropped", cause)
    def current = catalog.get(tableName).getOrElse(throw dropped(None))
    val table = current
    // Another session may drop the index between this statement's catalog change and its build.
    def replaced = new HBaseSQLException(s"$statement: index '$indexName' was dropped or replaced while it was built")
    val index = table.index(indexName).getOrElse(throw replaced)
    HBaseConnections.withConnection(catalog.cluster) { connection =>
      val admin = connection.getAdmin
      try WriteGuard.install(
          admin,
          table.hbaseTable,
          store.name,
          session.sessionState.conf.getConf(HBaseSQLConf.IndexMarkLease),
          statement
        )
      finally admin.close()
    }
    // Every write from here on is marked; every earlier one is in the rows the build reads.
    val generation = store.serverTime()
    // A read that failed because another session dropped or changed the table says so.
    def changedWhileBuilt(e: Throwable): Throwable =
      if (!NonFatal(e)) e
      else Try(catalog.get(tableName)) match {
        case Success(None) => dropped(Some(e))
        case Success(Some(now)) if now != table =>
          new HBaseSQLException(s"$statement: table '$tableName' was changed by another session; run it again", Some(e))
        case _ => e
      }
    try build(session, table, index, store, generation)
    catch {
      case e: Throwable =>
        store.dropChunks(table, index)(_ == generation)
        throw changedWhileBuilt(e)
    }
    // Some(None): a newer build of the same index was published meanwhile, and it stands.
    def publish(attempt: Int): Option[HBaseTableDef] = {
      val now = current
      val latest = now.index(indexName).filter(i =>
        i.columns == index.columns && i.chunkRows == index.chunkRows && now.hbaseTable == table.hbaseTable
      ).getOrElse(throw replaced)
      if (latest.generation.exists(_ >= generation)) None
      else {
        val updated = now.withIndex(latest.copy(generation = Some(generation)))
        if (catalog.replace(now, updated)) Some(updated)
        else if (attempt < 5) publish(attempt + 1)
        else
          throw new HBaseSQLException(s"$statement: table '$tableName' keeps changing in other sessions; run it again")
      }
    }
    // Whatever stops the publication (the table or index dropped meanwhile), this build's chunks go.
    val published =
      try publish(0)
      catch {
        case e: Throwable =>
          store.dropChunks(table, index)(_ == generation)
          throw e
      }
    published match {
      case Some(updated) =>
        // Older builds only: a newer one may be writing its chunks now, and removes ours when it publishes.
        store.dropChunks(table, index)(_ < generation)
        forgetOldMarks(catalog, store, updated, session)
        updated.index(indexName).get
      case None =>
        store.dropChunks(table, index)(_ == generation)
        current.index(indexName).getOrElse(index)
    }
  }

  /** Marks whose lease ended before every index over the HBase table was built tell nothing any more. */
  private def forgetOldMarks(
      catalog: TableDefinitionStore,
      store: RangeIndexStore,
      table: HBaseTableDef,
      session: SparkSession
  ): Unit = {
    val over = catalog.over(table.hbaseTable).getOrElse(Nil).flatMap(_.indexes)
    if (over.nonEmpty && over.forall(_.isReady)) {
      val skew = session.sessionState.conf.getConf(HBaseSQLConf.IndexClockSkew)
      store.dropMarksBefore(table.hbaseTable, over.flatMap(_.generation).min - skew)
    }
  }

  private def build(
      session: SparkSession,
      table: HBaseTableDef,
      index: RangeIndexDef,
      store: RangeIndexStore,
      generation: Long
  ): Unit = {
    val cluster = store.cluster
    val indexTable = store.name.getNameAsString
    val regions = HBaseRegions.of(cluster, table.hbaseTable).map(r => (r.startKey, r.endKey))
    session.sparkContext.setJobDescription(s"Range index ${index.name} of ${table.name}")
    try {
      session.sparkContext.parallelize(regions, math.max(1, regions.size)).foreachPartition { part =>
        val regionStore = new RangeIndexStore(cluster, TableName.valueOf(indexTable))
        part.foreach { case (start, stop) =>
          regionStore.writeChunks(table, index, generation, chunksOf(cluster, table, index, RowRange(start, stop)))
        }
      }
    } finally session.sparkContext.setJobDescription(null)
  }

  /** The chunks of one region's rows: [region start, k1), [k1, k2), ..., [kn, region end). */
  def chunksOf(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      index: RangeIndexDef,
      region: RowRange
  ): Seq[ChunkStats] = {
    val columns = index.columns.map(table.column)
    val decode = new RowCodec(table).decoder(columns)
    val chunks = Vector.newBuilder[ChunkStats]
    var chunkStart = region.start
    var builders = columns.map(c => new ColumnStatsBuilder(c.dataType))
    var rows = 0L
    def cut(stop: Array[Byte]): Unit = {
      chunks += ChunkStats(RowRange(chunkStart, stop), rows, columns.map(_.name).zip(builders.map(_.result)).toMap)
      chunkStart = stop
      builders = columns.map(c => new ColumnStatsBuilder(c.dataType))
      rows = 0
    }
    HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
      try {
        val scan = new Scan().withStartRow(region.start).withStopRow(region.stop).setCaching(1000)
        table.rowFamilies.foreach(f => scan.addFamily(Utf8.bytes(f)))
        HBaseCalls.cellFilter(table, columns).foreach(scan.setFilter)
        val scanner = htable.getScanner(scan)
        try scanner.iterator().asScala.foreach { result =>
            if (rows == index.chunkRows) cut(result.getRow)
            val values = decode(result)
            var i = 0
            while (i < builders.length) { builders(i).add(values.get(i, columns(i).dataType)); i += 1 }
            rows += 1
          }
        finally scanner.close()
      } finally htable.close()
    }
    cut(region.stop)
    chunks.result()
  }
}
