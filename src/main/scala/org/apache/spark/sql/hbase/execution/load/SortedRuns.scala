package org.apache.spark.sql.hbase.execution.load

import scala.collection.mutable

import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.rdd.RDD

/**
 * The load without a shuffle, for input that is already in key order, as exports of a table by
 * its primary key usually are: each input partition writes its rows straight into HFiles, one
 * set per region its keys cross. It is only right when every partition is in key order and no
 * two partitions share a key (else the last of equal keys might not win), which is checked as
 * it goes and at the end: a partition stops at its first key out of order.
 */
private[load] object SortedRuns {

  /** One partition's outcome: None when its keys were out of order. */
  private final case class Run(first: Array[Byte], last: Array[Byte], written: WrittenRun)

  /** The runs written, or None (and files left to discard) when the rows were not in key order. */
  def write(keyed: RDD[(LoadKey, Array[Array[Byte]])], startKeys: Array[Array[Byte]], job: LoadJob): Option[Seq[WrittenRun]] = {
    val outcomes = keyed.mapPartitionsWithIndex { (index, partition) =>
      val partitioner = new RegionPartitioner(startKeys)
      val input = partition.buffered
      var first, last: Array[Byte] = null
      var inOrder = true
      val ordered = new Iterator[(LoadKey, Array[Array[Byte]])] {
        override def hasNext: Boolean = inOrder && input.hasNext && {
          inOrder = last == null || Bytes.compareTo(input.head._1.rowKey, last) >= 0
          inOrder
        }
        override def next(): (LoadKey, Array[Array[Byte]]) = {
          val row = input.next()
          if (first == null) first = row._1.rowKey
          last = row._1.rowKey
          row
        }
      }.buffered
      val written = mutable.ArrayBuffer.empty[RegionHFiles]
      val paths = mutable.Map.empty[String, Seq[String]]
      var rows = 0L
      try {
        while (ordered.hasNext) {
          val region = partitioner.getPartition(ordered.head._1)
          val end = if (region + 1 < startKeys.length) Some(startKeys(region + 1)) else None
          val files = job.files(s"run-$index-region-$region")
          written += files
          // Equal keys are never split: they belong to the same region.
          rows += files.write(new Iterator[(LoadKey, Array[Array[Byte]])] {
            override def hasNext: Boolean = ordered.hasNext && end.forall(e => Bytes.compareTo(ordered.head._1.rowKey, e) < 0)
            override def next(): (LoadKey, Array[Array[Byte]]) = ordered.next()
          })
          files.close().foreach { case (family, path) => paths(family) = paths.getOrElse(family, Nil) :+ path.toString }
        }
        if (inOrder) Iterator(Some(Run(first, last, WrittenRun(rows, paths.toMap))))
        else { written.foreach(_.abort()); Iterator(None) }
      } catch { case e: Throwable => written.foreach(_.abort()); throw e }
    }.collect()

    val runs = outcomes.flatten.filter(_.first != null).sortWith((a, b) => Bytes.compareTo(a.first, b.first) < 0)
    val disjoint = runs.zip(runs.drop(1)).forall { case (a, b) => Bytes.compareTo(a.last, b.first) < 0 }
    if (outcomes.forall(_.isDefined) && disjoint) Some(runs.map(_.written).toSeq) else None
  }
}
