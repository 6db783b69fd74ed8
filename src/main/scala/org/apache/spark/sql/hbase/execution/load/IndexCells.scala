// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.io.{DataInputStream, DataOutputStream, EOFException}
import java.nio.charset.StandardCharsets.ISO_8859_1

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.{Cell, CellUtil, KeyValue, KeyValueUtil, TableName}
import org.apache.hadoop.hbase.client.Get
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.{IndexRows, IndexSpec}

/**
 * The index cells one task's loaded rows give, written aside to a file of the staging directory
 * for [[IndexHFiles]] to sort into the index tables' HFiles. For each row and each index: the
 * index row the row gets (its status VERIFIED and its covered cells, as the region servers would
 * write them, `IndexRows.verifiedRow`), to land before the data; and a delete of the index row it
 * had, when that differs, to land after. What the row had is read from HBase, a batch of rows at
 * a time; what it gets is the loaded cells over the cells of the row the load does not write
 * (those of other definitions over the same HBase table).
 *
 * The file is a sequence of (target, KeyValue) pairs, each an int (see [[IndexedLoad.target]]),
 * the KeyValue's length and its bytes; it is staging, never read by anything but this load.
 */
final class IndexCells(
    val load: IndexedLoad,
    cluster: HBaseClusterConf,
    dataTable: TableName,
    loadedColumns: Set[String],
    val path: String,
    timestamp: Long
) {
  private val specs = IndexSpec.parseFrom(load.specs).asScala.toIndexedSeq
  private val pending = mutable.ArrayBuffer.empty[(Array[Byte], Seq[Cell])]
  private val conf = cluster.toConfiguration
  private val file = new Path(path)
  private val out = new DataOutputStream(file.getFileSystem(conf).create(file, false))

  /** A loaded row: its key and the cells it gets (puts only; a NULL's delete is a cell it lacks). */
  def add(rowKey: Array[Byte], cells: Seq[Cell]): Unit = {
    pending += (rowKey -> cells)
    if (pending.size >= IndexCells.RowsPerRead) flush()
  }

  private def flush(): Unit = if (pending.nonEmpty) {
    val gets = pending.map { case (row, _) => val g = new Get(row); specs.foreach(_.addCellsRead(g)); g }
    val before = HBaseConnections.withConnection(cluster) { connection =>
      val table = connection.getTable(dataTable)
      try table.get(gets.asJava)
      finally table.close()
    }
    pending.zip(before).foreach { case ((row, loaded), had) =>
      val old = Option(had.listCells()).map(_.asScala.toSeq).getOrElse(Nil)
      val now = (loaded ++ old.filterNot(c => loadedColumns.contains(IndexCells.column(c)))).asJava
      specs.indices.foreach { i =>
        val spec = specs(i)
        val right = IndexRows.rowOf(spec, row, now)
        if (right != null) {
          IndexRows.verifiedRow(spec, right, now, timestamp).getMutations.asScala.foreach { m =>
            m.getFamilyCellMap.values().asScala.foreach(_.asScala.foreach(c =>
              write(IndexedLoad.target(i, before = true), c)
            ))
          }
        }
        val wrong = IndexRows.rowOf(spec, row, old.asJava)
        if (wrong != null && (right == null || !Bytes.equals(wrong, right))) {
          load.tables(i).families.foreach { family =>
            write(
              IndexedLoad.target(i, before = false),
              new KeyValue(wrong, Utf8.bytes(family), null, timestamp, KeyValue.Type.DeleteFamily)
            )
          }
        }
      }
    }
    pending.clear()
  }

  private def write(target: Int, cell: Cell): Unit = {
    val bytes = KeyValueUtil.copyToNewByteArray(cell)
    out.writeInt(target)
    out.writeInt(bytes.length)
    out.write(bytes)
  }

  def close(): Unit = { flush(); out.close() }

  def abort(): Unit = {
    try out.close()
    catch { case _: Exception => }
    file.getFileSystem(conf).delete(file, false)
  }
}

private[load] object IndexCells {

  /** Rows whose earlier cells one multi-get reads. */
  val RowsPerRead = 500

  /** A cell's column as "family:qualifier" in ISO-8859-1, one char per byte. */
  def column(cell: Cell): String = column(CellUtil.cloneFamily(cell), CellUtil.cloneQualifier(cell))

  def column(family: Array[Byte], qualifier: Array[Byte]): String =
    new String(family, ISO_8859_1) + ":" + new String(qualifier, ISO_8859_1)

  /** The cells of a file [[IndexCells]] wrote, each with its target. */
  def read(conf: Configuration, path: String): Iterator[(Int, Array[Byte])] = {
    val file = new Path(path)
    val in = new DataInputStream(file.getFileSystem(conf).open(file))
    new Iterator[(Int, Array[Byte])] {
      private var nextCell: Option[(Int, Array[Byte])] = advance()
      private def advance(): Option[(Int, Array[Byte])] =
        try {
          val target = in.readInt()
          val bytes = new Array[Byte](in.readInt())
          in.readFully(bytes)
          Some(target -> bytes)
        } catch { case _: EOFException => in.close(); None }
      override def hasNext: Boolean = nextCell.isDefined
      override def next(): (Int, Array[Byte]) = { val c = nextCell.get; nextCell = advance(); c }
    }
  }
}
