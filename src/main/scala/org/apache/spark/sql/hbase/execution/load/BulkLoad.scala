// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.hbase.TableName

import org.apache.spark.{SparkContext, SparkException, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.serializer.KryoSerializer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.rangeindex.WriteRecording
import org.apache.spark.sql.hbase.server.PackedCell

/**
 * Loads rows into an HBase table as HFiles: rows are encoded, sorted and partitioned by the
 * table's regions, each partition writes one HFile per family into a staging directory, and
 * HBase's bulk loader moves the files into the regions.
 *
 * Without `parallel`, nothing is loaded until every file is written, so a bad row anywhere
 * loads nothing. With it, each task loads its own files as soon as they are written: rows that
 * come in runs of ascending keys are loaded run by run, so a failure leaves the runs loaded
 * before it; rows that are shuffled are all read and checked before any task loads. Either way
 * the staging directory is removed at the end, and HBase loads each region's files atomically;
 * loading the same rows again writes the same values, so a retry after a failure is safe.
 *
 * With `recording`, each set of files is recorded for the table's range indexes before it is
 * loaded (see [[RecordedWrites]]); without PARALLEL, the marks' leases start again just before
 * the load. With `indexes`, the load keeps the global indexes of the HBase table (see
 * [[IndexedLoad]]): the driver loads their rows, the data and their deletes in that order, so
 * PARALLEL then loads nothing before every file is written.
 *
 * The work and its outcome are counted in [[LoadMetrics]], and the Spark jobs are described by
 * what they do (e.g. "LOAD DATA into t: writing HFiles"), for the Spark UI and listeners.
 */
object BulkLoad {
  val StagingPrefix = "spark-hbase-load-"

  /** HBase's own place for bulk-load staging, on the file system the region servers read. */
  def stagingRoot(conf: Configuration): Path = new Path(conf.get("hbase.fs.tmp.dir", "/tmp/hbase-staging"))

  /** A new staging directory's path under [[stagingRoot]], its name `prefix` and a fresh id. */
  private[load] def newStaging(conf: Configuration, prefix: String): Path =
    new Path(stagingRoot(conf), s"$prefix${UUID.randomUUID()}")

  /** Makes `staging` an empty directory that the loading user may move files out of (see StagedHFiles.close). */
  private[load] def emptyStaging(conf: Configuration, staging: Path): Unit = {
    val fs = staging.getFileSystem(conf)
    fs.delete(staging, true)
    fs.mkdirs(staging, new FsPermission("777"))
    fs.setPermission(staging, new FsPermission("777"))
  }

  /** The encoded values of one row (NULLs included) as one array: each is a length, -1 for NULL, then its bytes. */
  private[load] def packValues(values: Array[Array[Byte]]): Array[Byte] = {
    val buffer = java.nio.ByteBuffer.allocate(values.map(v => 4 + (if (v == null) 0 else v.length)).sum)
    values.foreach { v => if (v == null) buffer.putInt(-1) else buffer.putInt(v.length).put(v) }
    buffer.array()
  }

  private[load] def unpackValues(packed: Array[Byte]): Array[Array[Byte]] = {
    val buffer = java.nio.ByteBuffer.wrap(packed)
    val out = Array.newBuilder[Array[Byte]]
    while (buffer.hasRemaining) {
      val length = buffer.getInt()
      out += (if (length < 0) null else { val v = new Array[Byte](length); buffer.get(v); v })
    }
    out.result()
  }

  /**
   * `rows` are in table column order, each with its place in the input (a row may be reused for
   * the next: each is encoded before the next is read); returns the rows loaded. When they turn
   * out not to come in key order, they are read a second time. `statement` names the load in the
   * jobs' descriptions.
   */
  def apply(
      table: HBaseTableDef,
      cluster: HBaseClusterConf,
      rows: RDD[(Long, InternalRow)],
      parallel: Boolean,
      recording: Option[WriteRecording],
      indexes: Option[IndexedLoad],
      metrics: LoadMetrics,
      statement: String
  ): Long = {
    val conf = cluster.toConfiguration
    val tableName = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name)
    val startKeys = HBaseRegions.of(cluster, table.hbaseTable).map(_.startKey).toArray
    val staging = newStaging(conf, StagingPrefix)
    val job = LoadJob(
      cluster,
      new RowCodec(table),
      FamilyStorage.of(cluster, tableName),
      staging.toString,
      System.currentTimeMillis(),
      recording,
      indexes,
      metrics
    )
    val keyed = rows.mapPartitions(_.map { case (order, row) =>
      (LoadKey(job.codec.rowKey(row), order), job.codec.cellValues(row))
    })
    val fs = staging.getFileSystem(conf)
    emptyStaging(conf, staging)
    val sc = rows.sparkContext
    // With global indexes, the index rows land before the data: the driver loads it all.
    val loadsInTasks = parallel && indexes.isEmpty
    val writing = if (loadsInTasks) "writing and loading HFiles" else "writing HFiles"
    try {
      val loadInTasks = if (loadsInTasks) Some(tableName.getNameAsString) else None
      val badRowsAtStart = metrics.badRows.value
      val (runs, badRowsBefore) =
        describingJobs(sc, s"$statement: $writing")(SortedRuns.write(keyed, startKeys, job, loadInTasks)) match {
          case Some(inKeyOrder) => (inKeyOrder, badRowsAtStart)
          case None =>
            emptyStaging(conf, staging)
            // The bad rows of the reading thrown away are not the load's skipped rows.
            val badRowsSoFar = metrics.badRows.value
            (
              describingJobs(sc, s"$statement: input not in key order, sorting it and $writing") {
                shuffleAndWrite(keyed, startKeys, job, loadInTasks)
              },
              badRowsSoFar
            )
        }
      val indexFiles = indexes.map { load =>
        load -> describingJobs(sc, s"$statement: sorting the rows of its global indexes into HFiles") {
          IndexHFiles.write(sc, job, load, runs.flatMap(_.indexCells))
        }
      }
      // With PARALLEL, every task has loaded its own files already.
      val regions = if (loadsInTasks) runs.flatMap(_.regions).toSet
      else {
        recording.foreach(_.store.renewMarks(table.hbaseTable, runs.flatMap(_.marks)))
        // Covering reads check this load's index rows against the data until a CHECK INDEX finds them exact.
        indexes.foreach(IndexHFiles.markLoad(cluster, _, job.timestamp, landed = false))
        try {
          indexFiles.foreach { case (load, written) =>
            IndexHFiles.load(cluster, metrics, load, written, before = true)
          }
          val loadedInto = RegionHFiles.bulkLoad(
            cluster,
            tableName,
            runs.flatMap(_.files).groupBy(_._1).map { case (family, parts) =>
              family -> parts.flatMap(_._2).map(new Path(_))
            },
            metrics
          )
          indexFiles.foreach { case (load, written) =>
            IndexHFiles.load(cluster, metrics, load, written, before = false)
          }
          loadedInto
        } finally indexes.foreach(IndexHFiles.markLoad(cluster, _, job.timestamp, landed = true))
      }
      val loaded = runs.map(_.rows).sum
      metrics.reportOutcome(
        sc,
        loaded,
        metrics.badRows.value - badRowsBefore,
        regions.size,
        loadedByDriver = !loadsInTasks
      )
      loaded
    } catch {
      // A bad row fails its task; report the row's problem, not the job's failure around it.
      case e: SparkException =>
        throw HBaseSQLException.causeOf(e).map(c => new HBaseSQLException(c.getMessage, Some(e))).getOrElse(e)
    } finally fs.delete(staging, true)
  }

  /** Runs `body` with its Spark jobs described as `description`, then puts back the description before. */
  private def describingJobs[T](sc: SparkContext, description: String)(body: => T): T = {
    val before = sc.getLocalProperty(SparkContext.SPARK_JOB_DESCRIPTION)
    sc.setJobDescription(description)
    try body
    finally sc.setJobDescription(before)
  }

  /** Rows in any order: shuffled into one partition per region and sorted there. */
  private def shuffleAndWrite(
      keyed: RDD[(LoadKey, Array[Array[Byte]])],
      startKeys: Array[Array[Byte]],
      job: LoadJob,
      loadInTasks: Option[String]
  ): Seq[WrittenRun] = {
    val packed = keyed.mapPartitions(_.map { case (key, values) => (key, packValues(values)) })
    // Rows cross the shuffle as two byte arrays each, with Kryo: Java serialization is several times slower.
    val sorted = new ShuffledRDD[LoadKey, Array[Byte], Array[Byte]](packed, new RegionPartitioner(startKeys))
      .setKeyOrdering(LoadKey.ordering)
      .setSerializer(new KryoSerializer(keyed.sparkContext.getConf))
    sorted.mapPartitionsWithIndex { (index, partition) =>
      val files = job.files(s"region-$index")
      try {
        val count = files.write(partition.map { case (key, values) => (key, unpackValues(values)) })
        val paths = files.close()
        val regions =
          loadInTasks.fold(Set.empty[String])(table => job.bulkLoad(table, paths.map { case (f, p) => f -> Seq(p) }))
        Iterator(WrittenRun(
          count,
          paths.map { case (f, p) => f -> Seq(p.toString) },
          files.markId.toSeq,
          files.indexCellsFile.toSeq,
          regions
        ))
      } catch { case e: Throwable => files.abort(); throw e }
    }.collect().toSeq
  }
}

/**
 * What every task of one load shares: where to write, how to encode, the cells' timestamp, where to
 * record rows, the global indexes to keep, and what to count.
 */
private[load] final case class LoadJob(
    cluster: HBaseClusterConf,
    codec: RowCodec,
    storage: Map[String, FamilyStorage],
    staging: String,
    timestamp: Long,
    recording: Option[WriteRecording],
    indexes: Option[IndexedLoad],
    metrics: LoadMetrics
) {

  /** The cells a loaded row replaces, as [[IndexCells.column]] names them: a packed table's family cells. */
  private def loadedColumns: Set[String] =
    if (codec.table.isPacked) codec.families.map(f => IndexCells.column(f, PackedCell.QUALIFIER)).toSet
    else codec.families.indices.map(i => IndexCells.column(codec.families(i), codec.qualifiers(i))).toSet

  /** The HFiles of one task's part, named after it and its attempt so that a retry never collides. */
  def files(part: String): RegionHFiles = {
    val attempt = Option(TaskContext.get()).map(_.attemptNumber()).getOrElse(0)
    val name = s"$part-attempt-$attempt"
    new RegionHFiles(
      cluster.toConfiguration,
      new Path(staging),
      codec,
      storage,
      name,
      timestamp,
      recording.map(_.writer(codec.table)),
      indexes.map { load =>
        val hbase = codec.table.hbaseTable.hbase
        new IndexCells(
          load,
          cluster,
          hbase,
          loadedColumns,
          new Path(new Path(staging, "index-cells"), name).toString,
          timestamp
        )
      },
      metrics
    )
  }

  /** Loads HFiles from a task (PARALLEL); returns the regions they went into. */
  def bulkLoad(table: String, files: Map[String, Seq[Path]]): Set[String] =
    RegionHFiles.bulkLoad(cluster, TableName.valueOf(table), files, metrics)
}

/**
 * HFiles one task wrote, by family, with how many rows they hold, the marks they are recorded
 * under, the files of their rows' index cells, and the regions (start keys in hex) they were
 * loaded into, when the task loaded them.
 */
private[load] final case class WrittenRun(
    rows: Long,
    files: Map[String, Seq[String]],
    marks: Seq[String],
    indexCells: Seq[String],
    regions: Set[String]
)
