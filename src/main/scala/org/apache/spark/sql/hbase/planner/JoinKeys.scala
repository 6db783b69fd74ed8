// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.hbase.codec.KeyCodec

/**
 * A scan's one step planned for run time: once its join's other side has run, the scan reads
 * only the rows whose leading key column holds a value that side's join keys hold, at most
 * `maxKeys` of them: a seek to each key's rows instead of a read of every row, as Phoenix's
 * skip-scan join and Spark's dynamic partition pruning do. The plan carries it
 * ([[TableScanPlan.joinKeys]]) and EXPLAIN shows it; execution only hands [[JoinKeys.narrow]]
 * the keys.
 *
 * `throughIndex` is a join on the leading column of a global index rather than on the key: the
 * values are looked up in the index, which names the rows to read ([[IndexLookup]]).
 */
final case class JoinKeys(maxKeys: Int, throughIndex: Option[IndexLookup] = None) {
  def describe: String =
    throughIndex.fold(s"rows narrowed at run time to keys from the join's other side (at most $maxKeys)") {
      lookup =>
        val kind = if (lookup.covering) "covering global index" else "global index"
        s"rows narrowed at run time to values of ${lookup.index.columns.head} from the join's other side (at most " +
          s"$maxKeys), through $kind ${lookup.index.name} [${lookup.index.indexTable}] (at most ${lookup.maxRows} rows)"
    }
}

object JoinKeys {

  /**
   * `plan` reading, in each region, only its ranges' rows with one of `values` (NULLs match
   * nothing) in the leading key column; unchanged when there are more values than its
   * [[JoinKeys]] step takes. Every region keeps its place, reading nothing where no value falls,
   * so the scan's partitions stay as planned. Through an index, the plan gets the index's lookup
   * of the values, which execution then takes as it takes one of a WHERE clause.
   */
  def narrow(plan: TableScanPlan, values: Seq[Any]): TableScanPlan = {
    val step = plan.joinKeys.getOrElse(throw new IllegalStateException("the plan has no join keys to narrow it"))
    // Counted before duplicates go: a list cut short at one more than the most is never used.
    if (values.size > step.maxKeys) plan
    else {
      val keys = values.filter(_ != null).distinct
      val points = KeyRanges.Ranges(keys.map(v => KeyRange(Vector(v), None)))
      step.throughIndex match {
        case Some(lookup) =>
          val layout = IndexLookup.layoutOf(plan.request.table, lookup.index)
          plan.copy(indexLookup = Some(lookup.copy(keyRanges = points, rows = RowRanges(points, layout))))
        case None =>
          val rows = RowRanges(points, KeyCodec.forTable(plan.request.table))
          plan.copy(regions = plan.regions.map { region =>
            region.copy(ranges = RowRanges(region.ranges).intersect(rows).ranges, narrowed = true)
          })
      }
    }
  }
}
