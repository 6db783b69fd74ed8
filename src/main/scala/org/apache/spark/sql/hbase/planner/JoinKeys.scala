// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.hbase.codec.KeyCodec

/**
 * A scan narrowed, once its join's other side has run, to the rows whose leading key column
 * holds a value that side's join keys hold: a seek to each key's rows instead of a read of
 * every row, as Phoenix's skip-scan join and Spark's dynamic partition pruning do.
 */
object JoinKeys {

  /**
   * `plan` reading, in each region, only its ranges' rows with one of `values` (NULLs match
   * nothing) in the leading key column; unchanged when there are more than `maxKeys` values.
   * Every region keeps its place, reading nothing where no value falls, so the scan's
   * partitions stay as planned.
   */
  def narrow(plan: TableScanPlan, values: Seq[Any], maxKeys: Int): TableScanPlan = {
    // Counted before duplicates go: a list cut short at one more than the most is never used.
    if (values.size > maxKeys) plan
    else {
      val keys = values.filter(_ != null).distinct
      val rows =
        ScanRanges(KeyRanges.Ranges(keys.map(v => KeyRange(Vector(v), None))), KeyCodec.forTable(plan.request.table))
      plan.copy(scan = plan.scan.copy(regions = plan.regions.map { region =>
        region.copy(ranges = ScanRanges(region.ranges).intersect(rows).ranges, narrowed = true)
      }))
    }
  }
}
