// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/**
 * Wraps a region's scanner so that it returns partial groups instead of rows (see {@link
 * AggregateBatch}). It sends a batch when the groups reach the spec's cap, when the region server's
 * {@link MemoryBudget} for aggregations refuses more, and when the region has no more rows. Reading
 * is done in the spec's slices of time, with a scanner context of its own, so that no call runs
 * long: between slices it returns nothing, and HBase answers the client with a heartbeat once the
 * RPC's time is up, whatever the region's size. The groups stay here between calls.
 *
 * <p>Parameters are raw types on purpose (see {@link AnsweringRegionScanner}).
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class AggregatingRegionScanner extends AnsweringRegionScanner {
  private final RowAggregator aggregator;
  private final int sliceMillis;
  private final List<Cell> cells = new ArrayList<>();
  private boolean exhausted;

  AggregatingRegionScanner(RegionScanner delegate, AggregateSpec spec, MemoryBudget budget) {
    super(delegate);
    this.aggregator = new RowAggregator(spec, budget);
    this.sliceMillis = spec.sliceMillis;
  }

  @Override
  protected boolean answer(List result) throws IOException {
    try {
      return aggregate(result);
    } catch (RuntimeException e) {
      // A scan's failure, not the region server's: the client gets it, the server goes on.
      throw new DoNotRetryIOException(
          "spark-hbase-sql aggregation failed in "
              + delegate.getRegionInfo().getRegionNameAsString(),
          e);
    }
  }

  private boolean aggregate(List result) throws IOException {
    if (exhausted) return false;
    long deadline = System.currentTimeMillis() + sliceMillis;
    ScannerContext slice =
        ScannerContext.newBuilder()
            .setTimeLimit(ScannerContext.LimitScope.BETWEEN_CELLS, deadline)
            .build();
    while (true) {
      cells.clear();
      boolean more = delegate.nextRaw(cells, slice);
      for (Cell c : cells) aggregator.add(c);
      if (!more || aggregator.failed()) {
        exhausted = true;
        aggregator.endOfRows();
        if (aggregator.hasRows()) result.add(aggregator.takeBatchCell());
        return false;
      }
      if (aggregator.full()) {
        result.add(aggregator.takeBatchCell());
        return true;
      }
      if (System.currentTimeMillis() >= deadline) return true;
    }
  }

  /**
   * HBase ends the whole scan, not only this region, when the filter is done and a call returns
   * nothing.
   */
  @Override
  public boolean isFilterDone() throws IOException {
    return delegate.isFilterDone();
  }

  /** Gives the groups' memory back whether the scan ended, failed or was cancelled. */
  @Override
  public void close() throws IOException {
    aggregator.release();
    super.close();
  }
}
