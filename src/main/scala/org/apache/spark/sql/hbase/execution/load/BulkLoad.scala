package org.apache.spark.sql.hbase.execution.load

import java.util.UUID

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.fs.permission.FsPermission
import org.apache.hadoop.hbase.TableName

import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.rdd.{RDD, ShuffledRDD}
import org.apache.spark.serializer.KryoSerializer
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.HBaseTableDef
import org.apache.spark.sql.hbase.codec.RowCodec
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.HBaseRegions

/**
 * Loads rows into an HBase table as HFiles: rows are encoded, sorted and partitioned by the
 * table's regions, each partition writes one HFile per family into a staging directory, and
 * HBase's bulk loader moves the files into the regions.
 *
 * Without `parallel`, nothing is loaded until every file is written, so a bad row anywhere
 * loads nothing. With it, each task loads its own files as soon as they are written. Either way
 * the staging directory is removed at the end, and HBase loads each region's files atomically;
 * loading the same rows again writes the same values, so a retry after a failure is safe.
 */
object BulkLoad {
  val StagingPrefix = "spark-hbase-load-"

  /** HBase's own place for bulk-load staging, on the file system the region servers read. */
  def stagingRoot(conf: Configuration): Path = new Path(conf.get("hbase.fs.tmp.dir", "/tmp/hbase-staging"))

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

  /** `rows` are in table column order, each with its place in the input; returns the rows loaded. */
  def apply(table: HBaseTableDef, cluster: HBaseClusterConf, rows: RDD[(Long, InternalRow)], parallel: Boolean): Long = {
    val conf = cluster.toConfiguration
    val tableName = TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name).getNameAsString
    val startKeys = HBaseRegions.of(cluster, table.hbaseTable).map(_.startKey).toArray
    val staging = new Path(stagingRoot(conf), s"$StagingPrefix${UUID.randomUUID()}").toString
    val timestamp = System.currentTimeMillis()
    val codec = new RowCodec(table)

    val keyed = rows.mapPartitions(_.map { case (order, row) => (LoadKey(codec.rowKey(row), order), packValues(codec.cellValues(row))) })
    // Rows cross the shuffle as two byte arrays each, with Kryo: Java serialization is several times slower.
    val sorted = new ShuffledRDD[LoadKey, Array[Byte], Array[Byte]](keyed, new RegionPartitioner(startKeys))
      .setKeyOrdering(LoadKey.ordering)
      .setSerializer(new KryoSerializer(rows.sparkContext.getConf))
      .mapPartitions(_.map { case (key, packed) => (key, unpackValues(packed)) }, preservesPartitioning = true)
    val fs = new Path(staging).getFileSystem(conf)
    fs.mkdirs(new Path(staging), new FsPermission("777")) // see RegionHFiles.close
    fs.setPermission(new Path(staging), new FsPermission("777"))
    try {
      val written = sorted.mapPartitionsWithIndex { (index, partition) =>
        val taskConf = cluster.toConfiguration
        val attempt = Option(TaskContext.get()).map(_.attemptNumber()).getOrElse(0)
        val files = new RegionHFiles(taskConf, new Path(staging), codec, s"region-$index-attempt-$attempt", timestamp)
        try {
          val count = files.write(partition)
          val paths = files.close()
          if (parallel) RegionHFiles.bulkLoad(taskConf, TableName.valueOf(tableName), paths.map { case (f, p) => f -> Seq(p) })
          Iterator(count)
        } catch { case e: Throwable => files.abort(); throw e }
      }.collect().sum
      if (!parallel) {
        val families = Option(fs.listStatus(new Path(staging))).toSeq.flatten.filter(_.isDirectory)
        val files = families.map(f => f.getPath.getName -> fs.listStatus(f.getPath).toSeq.map(_.getPath)).toMap
        RegionHFiles.bulkLoad(conf, TableName.valueOf(tableName), files)
      }
      written
    } catch {
      // A bad row fails its task; report the row's problem, not the job's failure around it.
      case e: SparkException => throw HBaseSqlException.causeOf(e).map(c => new HBaseSqlException(c.getMessage, Some(e))).getOrElse(e)
    } finally fs.delete(new Path(staging), true)
  }
}
