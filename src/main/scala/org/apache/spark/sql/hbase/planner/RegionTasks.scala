// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

/**
 * How a scan's regions are shared out among Spark tasks when the read is small for its regions:
 * task i reads the next `regionsPerTask(i)` regions in key order, one after another, on the one
 * region reader. A task costs Spark tens of milliseconds however little it reads (scheduling,
 * (de)serializing, generated code set up), which is most of a small region's read; a slot that
 * reads several regions in turn keeps the region servers as busy as tasks of one region each did,
 * since each slot reads one region at a time either way.
 *
 * @param regionsPerTask how many consecutive regions each task reads, in key order
 * @param bytesPerTask   the estimated bytes each task reads, at most
 */
final case class RegionTasks(regionsPerTask: Seq[Int], bytesPerTask: BigInt) {
  require(regionsPerTask.nonEmpty && regionsPerTask.forall(_ > 0), "every task reads a region")

  def tasks: Int = regionsPerTask.size

  /** `regions`, in key order, cut into each task's. */
  def group[T](regions: Seq[T]): Seq[Seq[T]] = {
    require(regions.size == regionsPerTask.sum, "the tasks share out the plan's regions")
    regionsPerTask.scanLeft(0)(_ + _).zip(regionsPerTask).map { case (from, n) => regions.slice(from, from + n) }
  }

  def describe: String = {
    val most = RegionTasks.megabytes(bytesPerTask)
    if (tasks == 1) s", in one task of $most at most" else s", in $tasks tasks of $most at most each"
  }
}

object RegionTasks {

  /** The fewest estimated bytes worth a task of their own: less is read sooner than a task starts. */
  val MinTaskBytes: BigInt = BigInt(8L * 1024 * 1024)

  /**
   * The tasks that read `regions` regions of `regionBytes` each (as estimated: HBase reports
   * whole tables, so the table's bytes over its regions), or None for a task per region: each
   * task reads at most `maxTaskBytes` (0 keeps a task per region), and there are at least
   * `minTasks` (Spark's default parallelism, so that every core still reads) unless each would
   * then read less than [[MinTaskBytes]]. A read of unknown size keeps a task per region.
   */
  def plan(regions: Int, regionBytes: Option[BigInt], maxTaskBytes: Long, minTasks: Int): Option[RegionTasks] =
    regionBytes.filter(_ => maxTaskBytes > 0 && regions > 1).flatMap { each =>
      val total = each * regions
      val target = (total / math.max(1, minTasks)).max(MinTaskBytes).min(BigInt(maxTaskBytes))
      val perTask = (target / each.max(1)).min(BigInt(regions)).toInt.max(1)
      val tasks = (regions + perTask - 1) / perTask
      // The regions shared out evenly: the first tasks read one more when they do not divide.
      val counts = Seq.tabulate(tasks)(i => regions / tasks + (if (i < regions % tasks) 1 else 0))
      Option.when(tasks < regions)(RegionTasks(counts, each * counts.max))
    }

  private def megabytes(bytes: BigInt): String = f"${bytes.toDouble / (1024 * 1024)}%.0f MB"
}
