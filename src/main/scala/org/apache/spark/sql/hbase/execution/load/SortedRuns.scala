// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.collection.mutable

import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.rdd.RDD

/**
 * The load without a shuffle, for input that comes in runs of ascending keys, as exports of a
 * table by its primary key do (one file or split per run, in whatever order a partition reads
 * them): each run is written straight into HFiles, one set per region its keys cross. A run ends
 * where a key is lower than the one before. It is only right when no two runs share a key (else
 * the last of equal keys might not win), which is checked at the end; a partition that breaks
 * into too many runs is input out of order, and stops early.
 */
private[load] object SortedRuns {

  /** Beyond this, a partition's rows are taken for unsorted: every run adds files to its regions. */
  val MaxRunsPerPartition = 16

  private final case class Run(first: Array[Byte], last: Array[Byte], written: WrittenRun)

  /**
   * The runs written, or None (and files left to discard) when the rows were not in runs of
   * ascending keys. With `loadInTasks`, each run is loaded into that table as soon as it is
   * written; should the runs turn out to share keys, the rows are loaded again, in order.
   */
  def write(
      keyed: RDD[(LoadKey, Array[Array[Byte]])],
      startKeys: Array[Array[Byte]],
      job: LoadJob,
      loadInTasks: Option[String]
  ): Option[Seq[WrittenRun]] = {
    val outcomes = keyed.mapPartitionsWithIndex { (index, partition) =>
      val partitioner = new RegionPartitioner(startKeys)
      val input = partition.buffered
      val runs = mutable.ArrayBuffer.empty[Run]
      val written = mutable.ArrayBuffer.empty[RegionHFiles]
      try {
        while (input.hasNext && runs.size < MaxRunsPerPartition) {
          val first = input.head._1.rowKey
          var last = first
          val ascending = new Iterator[(LoadKey, Array[Array[Byte]])] {
            override def hasNext: Boolean = input.hasNext && Bytes.compareTo(input.head._1.rowKey, last) >= 0
            override def next(): (LoadKey, Array[Array[Byte]]) = { val row = input.next(); last = row._1.rowKey; row }
          }.buffered
          val paths = mutable.Map.empty[String, Seq[String]]
          val marks = mutable.ArrayBuffer.empty[String]
          val indexCells = mutable.ArrayBuffer.empty[String]
          var rows = 0L
          while (ascending.hasNext) {
            val region = partitioner.getPartition(ascending.head._1)
            val end = if (region + 1 < startKeys.length) Some(startKeys(region + 1)) else None
            val files = job.files(s"run-$index-${runs.size}-region-$region")
            written += files
            // Equal keys are never split: they belong to the same region.
            rows += files.write(new Iterator[(LoadKey, Array[Array[Byte]])] {
              override def hasNext: Boolean = ascending.hasNext &&
                end.forall(e => Bytes.compareTo(ascending.head._1.rowKey, e) < 0)
              override def next(): (LoadKey, Array[Array[Byte]]) = ascending.next()
            })
            files.close().foreach { case (family, path) =>
              paths(family) = paths.getOrElse(family, Nil) :+ path.toString
            }
            marks ++= files.markId
            indexCells ++= files.indexCellsFile
          }
          val regions = loadInTasks.fold(Set.empty[String])(table =>
            job.bulkLoad(table, paths.toMap.map { case (family, files) => family -> files.map(new Path(_)) })
          )
          runs += Run(first, last, WrittenRun(rows, paths.toMap, marks.toSeq, indexCells.toSeq, regions))
        }
        if (input.hasNext) { written.foreach(_.abort()); Iterator(None) }
        else Iterator(Some(runs.toSeq))
      } catch { case e: Throwable => written.foreach(_.abort()); throw e }
    }.collect()

    val runs = outcomes.flatten.flatten.sortWith((a, b) => Bytes.compareTo(a.first, b.first) < 0)
    val disjoint = runs.zip(runs.drop(1)).forall { case (a, b) => Bytes.compareTo(a.last, b.first) < 0 }
    if (outcomes.forall(_.isDefined) && disjoint) Some(runs.map(_.written).toSeq) else None
  }
}
