// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Folds rows into partial groups as an {@link AggregateSpec} says. Cells arrive in scan order, a
 * row's cells together but possibly over several calls; a row is folded in once the next row starts
 * or {@link #endOfRows} is called. The same class runs in a region server and, for rows a region
 * server sent unaggregated, in a Spark task.
 *
 * <p>Over a global index's rows ({@link AggregateSpec#overIndex}) a row is its data row as the
 * index row holds it: the data row key that ends the index key, and the covered cells. Only a row
 * whose status cell says VERIFIED, and that is well formed, is folded in: a VERIFIED row matches
 * its data row (docs/indexes.md). The key of any other is kept for the batch ({@link #toCheck}), so
 * that the client checks it against its data row as a reader checks an UNVERIFIED row, and reads
 * that row from the data table only if it gives this very index key (a stale row may name a data
 * row whose own index row was folded in); an index row whose key holds no data row key is no row.
 */
public final class RowAggregator {
  // What a group costs beyond its key's bytes: the map entry, the group, its arrays and each
  // accumulator (a decimal sum holds a BigDecimal), rounded up.
  private static final long GROUP_BYTES = 160;
  private static final long ACCUMULATOR_BYTES = 64;
  // What an index row key kept for the client costs beyond its bytes.
  private static final long KEY_BYTES = 48;

  private final AggregateSpec spec;
  private final RowOperands row;
  private final MemoryBudget budget; // null in a Spark task, whose memory Spark manages
  private final Map<ByteBuffer, Group> groups = new HashMap<>();
  private long reserved;
  private boolean outOfMemory; // the budget refused a group: send the groups now
  private boolean ended; // no more cells come: the next batch is the last
  private byte[] currentRow; // null: between rows
  private byte[] lastFolded;
  private long rowsScanned;
  private ValueExpression.OutOfRange failure; // the first value Spark would have failed on
  private byte[] badKey; // the first row key that is not a key of the table, unless skipped
  private long badKeys; // rows left out since the last batch for their keys
  private final IndexSpec index; // null: the rows are the table's own
  private byte status = -1; // the row's index status, when over an index; -1: none seen
  private byte[] dataRow; // the data row key of the current index row, when over an index
  private final List<byte[]> toCheck = new ArrayList<>(); // index rows it cannot vouch for

  private static final class Group {
    final byte[][] key;
    final Accumulator[] accumulators;

    Group(byte[][] key, Accumulator[] accumulators) {
      this.key = key;
      this.accumulators = accumulators;
    }
  }

  public RowAggregator(AggregateSpec spec) {
    this(spec, null);
  }

  /** An aggregator whose groups are charged to `budget`; see {@link MemoryBudget}. */
  public RowAggregator(AggregateSpec spec, MemoryBudget budget) {
    this.spec = spec;
    this.row = new RowOperands(spec.layout, spec.operands);
    this.budget = budget;
    this.index = spec.overIndex;
  }

  /** Takes the next cell of the scan. */
  public void add(Cell cell) {
    if (currentRow == null || !CellUtil.matchingRows(cell, currentRow)) {
      if (currentRow != null) foldRow();
      currentRow = CellUtil.cloneRow(cell);
      if (index != null) {
        dataRow = index.dataRowOf(currentRow);
        status = -1;
      }
      row.reset(index == null ? currentRow : dataRow);
    }
    if (index != null
        && CellUtil.matchingColumn(cell, IndexSpec.STATUS_FAMILY, IndexSpec.STATUS)
        && status == -1) {
      // The newest version comes first; a value of another length is no status.
      status = cell.getValueLength() == 1 ? cell.getValueArray()[cell.getValueOffset()] : -2;
      return; // no operand reads it
    }
    row.capture(cell);
  }

  /** The scan has no more cells: the row in progress is complete. */
  public void endOfRows() {
    ended = true;
    if (currentRow != null) foldRow();
  }

  private void foldRow() {
    rowsScanned++;
    lastFolded = currentRow;
    currentRow = null;
    if (failed()) return; // the query fails: the rows after need no work
    if (index != null) {
      if (!vouchedFor()) return;
    } else if (row.malformed() || (spec.keyCheck != null && !spec.keyCheck.accepts(lastFolded))) {
      if (spec.skipBadKeys) badKeys++;
      else badKey = lastFolded;
      return;
    }
    if (spec.predicate != null && spec.predicate.eval(row) != RowPredicate.TRUE) return;
    byte[][] key = new byte[spec.groupBy.length][];
    int size = 0;
    for (int g = 0; g < key.length; g++) {
      key[g] = row.value(spec.groupBy[g]);
      size += 5 + (key[g] == null ? 0 : key[g].length);
    }
    ByteBuffer lookup = ByteBuffer.wrap(groupKey(key, size));
    Group group = groups.get(lookup);
    if (group == null) {
      charge(GROUP_BYTES + 2L * size + ACCUMULATOR_BYTES * spec.aggregates.length);
      Accumulator[] accumulators = new Accumulator[spec.aggregates.length];
      for (int a = 0; a < accumulators.length; a++)
        accumulators[a] = spec.aggregates[a].newAccumulator();
      group = new Group(key, accumulators);
      groups.put(lookup, group);
    }
    try {
      for (Accumulator a : group.accumulators) a.update(row);
    } catch (ValueExpression.OutOfRange e) {
      failure = e; // the query fails, as Spark's would; the rows after it need no work
    }
  }

  /**
   * Whether the index row just ended stands for its data row here: VERIFIED, with a data row key
   * the table's key check accepts, and covered cells that read well. The key of any other is kept
   * for the client to check; a row with no data row key in its index key is no index row.
   */
  private boolean vouchedFor() {
    if (dataRow == null) return false;
    boolean vouched =
        status == IndexSpec.VERIFIED
            && !row.malformed()
            && (spec.keyCheck == null || spec.keyCheck.accepts(dataRow));
    if (!vouched) {
      charge(KEY_BYTES + lastFolded.length);
      toCheck.add(lastFolded);
    }
    return vouched;
  }

  /** Each value with its presence and length, so that different tuples never share a key. */
  private static byte[] groupKey(byte[][] key, int size) {
    ByteBuffer out = ByteBuffer.allocate(size);
    for (byte[] k : key) {
      if (k == null) out.put((byte) 0).putInt(0);
      else out.put((byte) 1).putInt(k.length).put(k);
    }
    return out.array();
  }

  /**
   * A new group's bytes: reserved if they fit the budget and the spec's byte cap; if not, held
   * anyway (the group is already made), and the groups are to be sent.
   */
  private void charge(long bytes) {
    if (spec.maxBytes > 0 && reserved + bytes > spec.maxBytes) outOfMemory = true;
    if (budget != null && !budget.tryReserve(bytes)) {
      budget.reserve(bytes);
      outOfMemory = true;
    }
    reserved += bytes;
  }

  /** Whether the groups have reached the spec's cap, or the memory budget, and should be sent. */
  public boolean full() {
    return groups.size() + toCheck.size() >= spec.maxGroups || outOfMemory;
  }

  /** Gives the groups' bytes back to the budget: they are sent, or the scan is over. */
  public void release() {
    if (budget != null && reserved > 0) budget.release(reserved);
    reserved = 0;
    outOfMemory = false;
  }

  /** Why groups sent now are sent; at the end, the end, however full they are. */
  private byte sentFor() {
    if (ended) return AggregateBatch.ENDED;
    if (outOfMemory) return AggregateBatch.MEMORY;
    return groups.size() + toCheck.size() >= spec.maxGroups
        ? AggregateBatch.GROUP_CAP
        : AggregateBatch.ENDED;
  }

  /**
   * Whether a row held a value Spark would have failed on, or a key that is not a key of the table:
   * the query fails, the rest need not be read.
   */
  public boolean failed() {
    return failure != null || badKey != null;
  }

  /** Whether a row has been folded in since the last batch. */
  public boolean hasRows() {
    return rowsScanned > 0;
  }

  /** The key of the last row folded in; a batch sent now covers every row up to it. */
  public byte[] lastFoldedRow() {
    return lastFolded;
  }

  /**
   * The groups and the count of rows folded in since the last batch, as a batch's bytes; then
   * starts again.
   */
  public byte[] takeBatch() {
    long scanned = rowsScanned;
    long skipped = badKeys;
    byte sentFor = sentFor();
    Map<ByteBuffer, Group> sent = new HashMap<>(groups);
    List<byte[]> checked = new ArrayList<>(toCheck);
    groups.clear();
    toCheck.clear();
    rowsScanned = 0;
    badKeys = 0;
    release();
    int version = spec.version;
    return Wire.toBytes(
        version,
        out -> {
          write(out, version, scanned, sentFor, sent, failure, skipped, badKey);
          if (index != null) {
            out.writeInt(checked.size());
            for (byte[] key : checked) Wire.writeBytes(out, key);
          }
        });
  }

  /** {@link #takeBatch} as the cell a region server returns, keyed by the last row folded in. */
  public Cell takeBatchCell() {
    byte[] row = lastFolded;
    return AggregateBatch.cell(row, takeBatch());
  }

  private static void write(
      DataOutputStream out,
      int version,
      long scanned,
      byte sentFor,
      Map<ByteBuffer, Group> groups,
      ValueExpression.OutOfRange failure,
      long badKeys,
      byte[] badKey)
      throws IOException {
    out.writeLong(scanned);
    if (version >= 2) out.writeByte(sentFor);
    out.writeInt(groups.size());
    for (Group g : groups.values()) {
      for (byte[] k : g.key) {
        out.writeBoolean(k != null);
        if (k != null) Wire.writeBytes(out, k);
      }
      for (Accumulator a : g.accumulators) a.write(out);
    }
    out.writeBoolean(failure != null);
    if (failure != null) failure.write(out);
    if (AggregateSpec.checksKeys(version)) {
      out.writeLong(badKeys);
      out.writeBoolean(badKey != null);
      if (badKey != null) Wire.writeBytes(out, badKey);
    }
  }

  @Override
  public String toString() {
    return "RowAggregator("
        + groups.size()
        + " groups, "
        + rowsScanned
        + " rows, last "
        + (lastFolded == null ? "none" : Bytes.toStringBinary(lastFolded))
        + ")";
  }
}
