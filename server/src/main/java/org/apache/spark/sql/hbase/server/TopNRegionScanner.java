// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Wraps a region's scanner so that it returns only the {@link TopNSpec}'s top n of the rows its
 * filter passes: it reads the whole region, keeps a bounded heap of the n smallest rows so far (the
 * largest on top, to be replaced by a smaller one), and sends the rows it kept, in row key order,
 * once the region ends. Rows tied with the largest kept one are left out: the client's top-n above
 * sees n rows from this region at least as small, which is all a top-n of n rows needs.
 *
 * <p>Kept rows are copies, charged to the region server's {@link MemoryBudget}. When it refuses
 * more, the rows kept so far are sent (in row key order, all before the rows read after them) and
 * the heap starts again: more rows reach the client, never fewer. For the same reason a scan HBase
 * restarts after the last row the client got keeps the right rows: the rows sent before it are the
 * kept ones up to it, and the rest of the region is ranked again.
 *
 * <p>A row whose key is not a key of the table, or whose packed cell is malformed, is sent with
 * what is kept and ends the scan: the client fails on it, as on any read of it.
 *
 * <p>Reading is done in the spec's slices of time, between rows, so each call of the region's
 * scanner returns one whole row and no call runs long: between slices nothing is returned, and
 * HBase answers the client with a heartbeat.
 *
 * <p>Parameters are raw types on purpose (see {@link AnsweringRegionScanner}).
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class TopNRegionScanner extends AnsweringRegionScanner {
  // What a kept row costs beyond its cells' bytes (the heap entry, the row, its lists), and each
  // cell beyond its bytes, rounded up.
  private static final long ROW_BYTES = 160;
  private static final long CELL_BYTES = 96;

  private static final class Kept {
    final byte[] key;
    final byte[][] values;
    final List<Cell> cells;
    final long bytes;

    Kept(byte[] key, byte[][] values, List<Cell> cells, long bytes) {
      this.key = key;
      this.values = values;
      this.cells = cells;
      this.bytes = bytes;
    }
  }

  private final TopNSpec spec;
  private final MemoryBudget budget;
  private final RowOperands row;
  private final PriorityQueue<Kept> kept; // the largest kept row on top
  private final List<Cell> cells = new ArrayList<>();
  private List<Kept> sending; // rows being sent, in row key order
  private int nextToSend;
  private long reserved;
  private boolean exhausted;

  TopNRegionScanner(RegionScanner delegate, TopNSpec spec, MemoryBudget budget) {
    super(delegate);
    this.spec = spec;
    this.budget = budget;
    this.row = new RowOperands(spec.layout, spec.operands);
    Comparator<Kept> byValues = (a, b) -> spec.compare(a.values, b.values);
    this.kept = new PriorityQueue<>(Math.min(spec.maxRows, 1024) + 1, byValues.reversed());
  }

  @Override
  protected boolean answer(List result) throws IOException {
    return answer(result, null);
  }

  @Override
  protected boolean answer(List result, ScannerContext context) throws IOException {
    try {
      return topN(result, context);
    } catch (RuntimeException e) {
      // A scan's failure, not the region server's: the client gets it, the server goes on.
      throw new DoNotRetryIOException(
          "spark-hbase-sql top-n failed in " + delegate.getRegionInfo().getRegionNameAsString(), e);
    }
  }

  private boolean topN(List result, ScannerContext context) throws IOException {
    if (sending != null) return send(result);
    if (exhausted) return false;
    long deadline = System.currentTimeMillis() + spec.sliceMillis;
    // The rows read count in the client's scan metrics, as those of any scan do.
    boolean counted = context != null && context.isTrackingMetrics();
    ScannerContext slice =
        ScannerContext.newBuilder()
            .setTrackMetrics(counted)
            .setTimeLimit(ScannerContext.LimitScope.BETWEEN_ROWS, deadline)
            .build();
    try {
      return read(result, slice, deadline);
    } finally {
      if (counted) {
        context
            .getMetrics()
            .countOfRowsScanned
            .addAndGet(slice.getMetrics().countOfRowsScanned.get());
        context
            .getMetrics()
            .countOfRowsFiltered
            .addAndGet(slice.getMetrics().countOfRowsFiltered.get());
      }
    }
  }

  private boolean read(List result, ScannerContext slice, long deadline) throws IOException {
    while (true) {
      cells.clear();
      boolean more = delegate.nextRaw(cells, slice);
      boolean full = !cells.isEmpty() && !rank();
      if (!more) exhausted = true;
      if (!more || full) {
        startSending();
        return send(result);
      }
      if (System.currentTimeMillis() >= deadline) return true;
    }
  }

  /**
   * Ranks the row whose cells were just read; false when what is kept must be sent now (the budget
   * refused more, or the row must reach the client as it is).
   */
  private boolean rank() {
    byte[] key = CellUtil.cloneRow(cells.get(0));
    row.reset(key);
    for (Cell c : cells) row.capture(c);
    if (row.malformed() || (spec.keyCheck != null && !spec.keyCheck.accepts(key))) {
      exhausted = true; // the client fails on this row: nothing after it matters
      keep(key, new byte[spec.sortBy.length][]);
      return false;
    }
    byte[][] values = new byte[spec.sortBy.length][];
    for (int i = 0; i < values.length; i++) values[i] = row.value(spec.sortBy[i]);
    if (kept.size() >= spec.maxRows) {
      if (spec.compare(values, kept.peek().values) >= 0) return true; // not among the n smallest
      Kept largest = kept.poll();
      release(largest.bytes);
    }
    return keep(key, values);
  }

  /** Keeps a copy of the row; false when the budget refused its bytes. */
  private boolean keep(byte[] key, byte[][] values) {
    long bytes = ROW_BYTES;
    List<Cell> copies = new ArrayList<>(cells.size());
    for (Cell c : cells) {
      copies.add(copy(c));
      bytes +=
          CELL_BYTES
              + c.getRowLength()
              + c.getFamilyLength()
              + c.getQualifierLength()
              + c.getValueLength();
    }
    for (byte[] v : values) bytes += v == null ? 0 : v.length;
    boolean fits = budget.tryReserve(bytes);
    if (!fits) budget.reserve(bytes); // held anyway: the row is read, and sent next
    reserved += bytes;
    kept.add(new Kept(key, values, copies, bytes));
    return fits;
  }

  /** A copy of a cell that outlives the region server's blocks it may point into. */
  private static Cell copy(Cell c) {
    return CellBuilderFactory.create(CellBuilderType.DEEP_COPY)
        .setRow(c.getRowArray(), c.getRowOffset(), c.getRowLength())
        .setFamily(c.getFamilyArray(), c.getFamilyOffset(), c.getFamilyLength())
        .setQualifier(c.getQualifierArray(), c.getQualifierOffset(), c.getQualifierLength())
        .setTimestamp(c.getTimestamp())
        .setType(c.getType())
        .setValue(c.getValueArray(), c.getValueOffset(), c.getValueLength())
        .build();
  }

  private void startSending() {
    sending = new ArrayList<>(kept);
    kept.clear();
    sending.sort((a, b) -> Bytes.compareTo(a.key, b.key));
    nextToSend = 0;
  }

  /** One kept row per call, then on with the region (if it has more) once all are sent. */
  private boolean send(List result) {
    if (nextToSend < sending.size()) {
      Kept next = sending.get(nextToSend++);
      result.addAll(next.cells);
      release(next.bytes);
    }
    if (nextToSend < sending.size()) return true;
    sending = null;
    return !exhausted;
  }

  private void release(long bytes) {
    budget.release(bytes);
    reserved -= bytes;
  }

  /**
   * HBase ends the whole scan, not only this region, when the filter is done and a call returns
   * nothing.
   */
  @Override
  public boolean isFilterDone() throws IOException {
    return delegate.isFilterDone();
  }

  /** Gives the kept rows' memory back whether the scan ended, failed or was cancelled. */
  @Override
  public void close() throws IOException {
    if (reserved > 0) budget.release(reserved);
    reserved = 0;
    kept.clear();
    sending = null;
    super.close();
  }
}
