// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.{CellComparator, CellUtil, KeyValue, TableName}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.{Partitioner, SparkContext, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.serializer.KryoSerializer
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.globalindex.IndexMarks

/** An index cell on its way to an HFile: where it goes ([[IndexedLoad.target]]) and the KeyValue's bytes. */
private[load] final case class IndexCell(target: Int, keyValue: Array[Byte])

private[load] object IndexCell {
  // A KeyValue's bytes begin with its key's and its value's lengths (4 bytes each), then its row's (2) and its row.
  private val RowLengthAt = 8
  private val RowAt = 10

  /**
   * By target, then in HBase's order: the rows compared where they lie, which decides most pairs
   * without making a KeyValue of either (a build's sort was 10 % faster), then the rest of the key.
   */
  val ordering: Ordering[IndexCell] = (a, b) => {
    val byTarget = Integer.compare(a.target, b.target)
    if (byTarget != 0) byTarget
    else {
      val (x, y) = (a.keyValue, b.keyValue)
      val byRow = Bytes.compareTo(x, RowAt, Bytes.toShort(x, RowLengthAt), y, RowAt, Bytes.toShort(y, RowLengthAt))
      if (byRow != 0) byRow else CellComparator.getInstance().compare(new KeyValue(x), new KeyValue(y))
    }
  }
}

/** Sends each index cell to the partition of its target's region that holds its row. */
private[load] final class IndexCellPartitioner(load: IndexedLoad) extends Partitioner {
  // Targets in order, each with a partition per region of its index table.
  private val regions = (0 until load.tables.size * 2).map(t => load.tables(t / 2).startKeys.length)
  private val offsets = regions.scanLeft(0)(_ + _).toArray

  override def numPartitions: Int = regions.sum

  override def getPartition(key: Any): Int = {
    val cell = key.asInstanceOf[IndexCell]
    val kv = new KeyValue(cell.keyValue)
    offsets(cell.target) + RegionPartitioner.regionOf(
      load.tables(cell.target / 2).startKeys,
      Bytes.copy(kv.getRowArray, kv.getRowOffset, kv.getRowLength)
    )
  }
}

/** The index cells of a load or an index build, sorted into HFiles per index region, and loaded. */
private[load] object IndexHFiles {

  /** HFiles of one target, by family, and the index rows they hold. */
  final case class Written(target: Int, files: Map[String, Seq[String]], rows: Long)

  /** Sorts the cells the tasks wrote aside (`cellFiles`) into HFiles, one set per index region. */
  def write(sc: SparkContext, job: LoadJob, load: IndexedLoad, cellFiles: Seq[String]): Seq[Written] =
    if (cellFiles.isEmpty) Nil
    else {
      val cluster = job.cluster
      val cells = sc.parallelize(cellFiles, cellFiles.size).mapPartitions { files =>
        val conf = cluster.toConfiguration
        files.flatMap(f => IndexCells.read(conf, f)).map { case (target, kv) => (IndexCell(target, kv), 0.toByte) }
      }
      sorted(cells, cluster, load, new Path(job.staging), job.timestamp, job.metrics)
    }

  /** Sorts `cells` into HFiles under `staging`, one set per index region of each target. */
  def sorted(
      cells: RDD[(IndexCell, Byte)],
      cluster: HBaseClusterConf,
      load: IndexedLoad,
      staging: Path,
      timestamp: Long,
      metrics: LoadMetrics
  ): Seq[Written] = {
    val sorted = new ShuffledRDD[IndexCell, Byte, Byte](cells, new IndexCellPartitioner(load))
      .setKeyOrdering(IndexCell.ordering)
      .setSerializer(new KryoSerializer(cells.sparkContext.getConf))
    sorted.mapPartitionsWithIndex { (part, partition) =>
      val buffered = partition.buffered
      if (!buffered.hasNext) Iterator.empty
      else {
        val target = buffered.head._1.target
        val files = new StagedHFiles(
          cluster.toConfiguration,
          new Path(staging, s"index-$target"),
          load.tables(target / 2).storage,
          s"part-$part-attempt-${TaskContext.get().attemptNumber()}",
          timestamp,
          metrics
        )
        try {
          var rows = 0L
          var lastRow: Array[Byte] = null
          buffered.foreach { case (cell, _) =>
            val kv = new KeyValue(cell.keyValue)
            if (
              lastRow == null ||
              !Bytes.equals(kv.getRowArray, kv.getRowOffset, kv.getRowLength, lastRow, 0, lastRow.length)
            ) {
              rows += 1
              lastRow = CellUtil.cloneRow(kv)
            }
            files.append(Utf8.string(CellUtil.cloneFamily(kv)), kv)
          }
          Iterator(Written(target, files.close().map { case (f, p) => f -> Seq(p.toString) }, rows))
        } catch { case e: Throwable => files.abort(); throw e }
      }
    }.collect().toSeq
  }

  /**
   * Marks the load in each index table ([[IndexMarks.markLoad]]): its index rows, which carry
   * `timestamp`, are checked against the data by covering reads until a CHECK INDEX finds them exact.
   */
  def markLoad(cluster: HBaseClusterConf, load: IndexedLoad, timestamp: Long, landed: Boolean): Unit =
    HBaseConnections.withConnection(cluster) { connection =>
      load.tables.foreach { target =>
        val index = connection.getTable(TableName.valueOf(target.table))
        try IndexMarks.markLoad(index, timestamp, landed)
        finally index.close()
      }
    }

  /** Loads the HFiles of the step before the data (`before`) or after it into their index tables. */
  def load(
      cluster: HBaseClusterConf,
      metrics: LoadMetrics,
      load: IndexedLoad,
      written: Seq[Written],
      before: Boolean
  ): Unit =
    written.filter(w => (w.target % 2 == 0) == before).groupBy(_.target).foreach { case (target, parts) =>
      RegionHFiles.bulkLoad(
        cluster,
        TableName.valueOf(load.tables(target / 2).table),
        parts.flatMap(_.files).groupBy(_._1).map { case (family, fs) => family -> fs.flatMap(_._2).map(new Path(_)) },
        metrics
      )
    }
}
