// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution

import scala.collection.mutable

import org.apache.spark.TaskContext
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.UnsafeRow

/**
 * Rows of a job's partitions brought to the driver, as a collect or a take of our plans does.
 *
 * The job's task is an instance of a named class rather than a lambda: Spark's closure cleaner
 * reads and parses the class file around each lambda a job is given (for RDD.collect, RDD's and
 * SparkContext's, anew for every job), and leaves other functions alone. For a statement whose
 * scan runs in a job that reading was a tenth of the driver's CPU.
 */
object CollectedRows {

  /** The first `max` rows of each partition of `rows` (UnsafeRows of `width` fields), in partition order. */
  def of(rows: RDD[InternalRow], width: Int, max: Int = Int.MaxValue): Array[InternalRow] =
    in(rows, width, rows.partitions.indices, max)

  /** The first `max` rows of partitions `partitions` of `rows`, in that order. */
  def in(rows: RDD[InternalRow], width: Int, partitions: Seq[Int], max: Int): Array[InternalRow] = {
    val parts = new Array[Array[Array[Byte]]](partitions.size)
    // Spark hands each result over with its place in `partitions`.
    rows.sparkContext.runJob(
      rows,
      new RowBytes(max),
      partitions,
      (i: Int, bytes: Array[Array[Byte]]) => parts(i) = bytes
    )
    parts.flatMap(_.map { bytes =>
      val row = new UnsafeRow(width)
      row.pointTo(bytes, bytes.length)
      row: InternalRow
    })
  }

  /**
   * The first `n` rows of `rows` in partition order, reading partitions in rounds as Spark's own
   * take does: `initial` partitions first, then as many more as the rows found so far suggest,
   * at most `scaleUp` times as many as were read. No job runs for `n` of 0 or less.
   */
  def take(rows: RDD[InternalRow], width: Int, n: Int, initial: Int, scaleUp: Int): Array[InternalRow] = {
    val total = rows.partitions.length
    val found = mutable.ArrayBuffer.empty[InternalRow]
    var read = 0
    while (found.length < n && read < total) {
      val tries =
        if (read == 0) initial
        else if (found.isEmpty) read * scaleUp
        else math.min(math.ceil(1.5 * (n - found.length) * read / found.length).toInt, read * scaleUp)
      val partitions = read until math.min(total, read + tries)
      found ++= in(rows, width, partitions, n - found.length)
      read = partitions.end
    }
    found.take(n).toArray
  }

  /** A task's rows as the bytes of their UnsafeRows, at most `max` of them. */
  private final class RowBytes(max: Int)
      extends ((TaskContext, Iterator[InternalRow]) => Array[Array[Byte]])
      with Serializable {
    override def apply(context: TaskContext, rows: Iterator[InternalRow]): Array[Array[Byte]] =
      rows.take(max).map(_.asInstanceOf[UnsafeRow].copy().getBytes).toArray
  }
}
