// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.rangeindex

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CellUtil, TableName}
import org.apache.hadoop.hbase.client._
import org.apache.hadoop.hbase.filter.{FilterList, KeyOnlyFilter, PrefixFilter}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, HBaseTableName, MetadataTables, RangeIndexDef}
import org.apache.spark.sql.hbase.codec.{KeyBounds, RowRange}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.WriteMark
import org.apache.spark.sql.types.DataType

/**
 * The range index table: each build's chunk statistics and each writer's marks, under the
 * HBase table they describe (see [[WriteMark]] for the row layout). A chunk row is
 * `<namespace:table> 0x00 'C' <sql table> 0x00 <index> 0x00 <generation, 8 bytes> <chunk start>`,
 * holding [[ChunkStatsJson]]; a build's rows never change.
 */
final class RangeIndexStore(val cluster: HBaseClusterConf, val name: TableName) {
  import RangeIndexStore._

  /** Now, by the clock of the region server holding the index table: a build's generation. */
  def serverTime(): Long = withTable { table =>
    val result = table.increment(new Increment(ClockRow).addColumn(WriteMark.FAMILY, Clock, 1L))
    result.rawCells().head.getTimestamp
  }

  def writeChunks(table: HBaseTableDef, index: RangeIndexDef, generation: Long, chunks: Seq[ChunkStats]): Unit =
    withTable { t =>
      val typeOf = typesOf(table)
      t.put(chunks.map { c =>
        new Put(Bytes.add(chunkPrefix(table, index, generation), c.range.start))
          .addColumn(WriteMark.FAMILY, Chunk, Utf8.bytes(ChunkStatsJson.toJson(c, typeOf)))
      }.asJava)
    }

  /** A finished build's chunks, in key order, read now (`facts.IndexBuilds` keeps them). */
  def chunks(table: HBaseTableDef, index: RangeIndexDef, generation: Long): Seq[ChunkStats] = {
    val typeOf = typesOf(table).lift
    scanPrefix(chunkPrefix(table, index, generation)).map { r =>
      ChunkStatsJson.fromJson(Bytes.toString(r.getValue(WriteMark.FAMILY, Chunk)), typeOf)
    }
  }

  /** Removes the chunk rows of the builds of `index` that `doomed` picks by generation. */
  def dropChunks(table: HBaseTableDef, index: RangeIndexDef)(doomed: Long => Boolean): Unit = withTable { t =>
    val prefix = indexPrefix(table, index)
    val rows = scanPrefix(prefix, keyOnly = true).map(_.getRow).filter(r => doomed(Bytes.toLong(r, prefix.length)))
    rows.grouped(1000).foreach(batch => t.delete(new java.util.ArrayList(batch.map(new Delete(_)).asJava)))
  }

  /**
   * Of the chunks of build `generation` of `index`, the ones the planner may prune by now: none
   * unless the table carries the write guard, and of those, the ones [[ChunkTrust]] clears.
   */
  def usable(
      table: HBaseTableDef,
      index: RangeIndexDef,
      generation: Long,
      chunks: Seq[ChunkStats],
      skewMs: Long
  ): IndexChunks = {
    val guarded = HBaseConnections.withConnection(cluster) { connection =>
      val admin = connection.getAdmin
      try WriteGuard.isInstalled(
          admin.getDescriptor(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)),
          name
        )
      finally admin.close()
    }
    if (!guarded) IndexChunks(index, chunks, Nil)
    else IndexChunks(index, chunks, ChunkTrust(chunks, generation, marks(table), skewMs, typesOf(table)).chunks)
  }

  /** Every write mark of the HBase table; what a writer recorded is read for `table` only. */
  def marks(table: HBaseTableDef): Seq[MarkedWrite] = {
    val typeOf = typesOf(table).lift
    val recorded = rowsQualifier(table)
    scanPrefix(WriteMark.rowPrefix(table.hbaseTable.namespace, table.hbaseTable.name)).flatMap { r =>
      Option(r.getColumnLatestCell(WriteMark.FAMILY, WriteMark.MARK)).map { cell =>
        val mark = WriteMark.parseFrom(CellUtil.cloneValue(cell))
        MarkedWrite(
          RowRange(mark.start, mark.stop),
          cell.getTimestamp + mark.leaseMillis,
          Option(r.getValue(WriteMark.FAMILY, recorded)).map(b => ChunkStatsJson.fromJson(Bytes.toString(b), typeOf))
        )
      }
    }
  }

  /** A writer's own mark, with what it recorded of its rows; its lease starts now, by the server's clock. */
  def writeMark(table: HBaseTableDef, id: String, mark: WriteMark, rows: ChunkStats): Unit = withTable { t =>
    t.put(new Put(WriteMark.rowKey(table.hbaseTable.namespace, table.hbaseTable.name, id))
      .addColumn(WriteMark.FAMILY, WriteMark.MARK, mark.toByteArray)
      .addColumn(WriteMark.FAMILY, rowsQualifier(table), Utf8.bytes(ChunkStatsJson.toJson(rows, typesOf(table)))))
  }

  /**
   * Starts the leases of these marks of a writer again, now. A mark removed meanwhile comes back
   * without its statistics, which makes the chunks under it untrusted rather than wrong.
   */
  def renewMarks(table: HBaseTableName, ids: Seq[String]): Unit = if (ids.nonEmpty) withTable { t =>
    val marks = t.get(ids.map(id =>
      new Get(WriteMark.rowKey(table.namespace, table.name, id))
        .addColumn(WriteMark.FAMILY, WriteMark.MARK)
    ).asJava)
    t.put(marks.toSeq.filterNot(_.isEmpty).map { r =>
      new Put(r.getRow).addColumn(WriteMark.FAMILY, WriteMark.MARK, r.getValue(WriteMark.FAMILY, WriteMark.MARK))
    }.asJava)
  }

  /** Removes the marks of the HBase table whose lease ended before `beforeMs`. */
  def dropMarksBefore(table: HBaseTableName, beforeMs: Long): Unit = withTable { t =>
    val doomed = scanPrefix(WriteMark.rowPrefix(table.namespace, table.name)).filter { r =>
      Option(r.getColumnLatestCell(WriteMark.FAMILY, WriteMark.MARK)).exists { cell =>
        cell.getTimestamp + WriteMark.parseFrom(CellUtil.cloneValue(cell)).leaseMillis < beforeMs
      }
    }
    doomed.grouped(1000).foreach(rows => t.delete(new java.util.ArrayList(rows.map(r => new Delete(r.getRow)).asJava)))
  }

  private def scanPrefix(prefix: Array[Byte], keyOnly: Boolean = false): Seq[Result] = withTable { t =>
    val scan = new Scan().withStartRow(prefix).setCaching(1000)
      .setFilter(if (keyOnly) new FilterList(new PrefixFilter(prefix), new KeyOnlyFilter())
      else new PrefixFilter(prefix))
    val stop = KeyBounds.prefixEnd(prefix)
    if (stop.nonEmpty) scan.withStopRow(stop)
    val scanner = t.getScanner(scan)
    try scanner.iterator().asScala.toVector
    finally scanner.close()
  }

  private def withTable[T](body: Table => T): T = HBaseConnections.withConnection(cluster) { connection =>
    if (!ready) { MetadataTables.ensure(connection, name, WriteMark.FAMILY, cluster); ready = true }
    val table = connection.getTable(name)
    try body(table)
    finally table.close()
  }

  @volatile private var ready = false
}

object RangeIndexStore {
  // Below every table's rows: table names never start with 0x00.
  private val ClockRow = Array[Byte](0)
  private val Clock = Utf8.bytes("clock")
  private val Chunk = Utf8.bytes("chunk")

  private val stores = scala.collection.concurrent.TrieMap.empty[(HBaseClusterConf, String), RangeIndexStore]

  def of(cluster: HBaseClusterConf, name: String): RangeIndexStore =
    stores.getOrElseUpdate((cluster, name), new RangeIndexStore(cluster, TableName.valueOf(name)))

  /** The cell in which a writer records the statistics of its rows, for one SQL table. */
  def rowsQualifier(table: HBaseTableDef): Array[Byte] = Utf8.bytes(s"rows/${table.name.toLowerCase}")

  private def indexPrefix(table: HBaseTableDef, index: RangeIndexDef): Array[Byte] =
    Bytes.add(
      WriteMark.tablePrefix(table.hbaseTable.namespace, table.hbaseTable.name),
      Array('C'.toByte),
      Utf8.bytes(s"${table.name.toLowerCase}\u0000${index.name.toLowerCase}\u0000")
    )

  def chunkPrefix(table: HBaseTableDef, index: RangeIndexDef, generation: Long): Array[Byte] =
    Bytes.add(indexPrefix(table, index), Bytes.toBytes(generation))

  private def typesOf(table: HBaseTableDef): Map[String, DataType] = table.columns.map(c => c.name -> c.dataType).toMap
}
