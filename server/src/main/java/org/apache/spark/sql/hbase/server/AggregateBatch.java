// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Partial groups a region server sends in place of rows: one cell in a family no HBase table can
 * have (a control character), keyed by the last row folded in, so that a scan the client restarts
 * after that row neither loses nor repeats a row. Its value is versioned bytes, in the version of
 * the spec: the rows folded in since the previous batch, then (from version 2) why the batch was
 * sent, then each group's key (its group operands, each a presence flag and bytes) and its
 * aggregates' states (see {@link Accumulator}), then, if the region server met a value Spark would
 * have failed on, that value; from version 3, the rows left out for their keys and the first key
 * that failed the aggregation (see {@link KeyCheck}); from version 6, over a global index's rows,
 * the keys of the index rows it could not vouch for (see {@link RowAggregator}).
 */
public final class AggregateBatch {
  static final byte[] FAMILY = {0};
  static final byte[] QUALIFIER = Bytes.toBytes("spark-hbase-sql-aggregate");

  /** The region has no more rows for the scan (or a row failed it). */
  public static final byte ENDED = 0;

  /** The groups reached the spec's cap. */
  public static final byte GROUP_CAP = 1;

  /** The groups reached the spec's byte cap, or the region server's budget refused more. */
  public static final byte MEMORY = 2;

  /** Rows the region server looked at for this batch. */
  public final long rowsScanned;

  /**
   * Why it was sent: {@link #ENDED}, {@link #GROUP_CAP} or {@link #MEMORY}; a version 1 server does
   * not say ({@link #ENDED}).
   */
  public final byte sentFor;

  /** Each group's operand values (null for NULL), in the spec's group-by order. */
  public final List<byte[][]> keys;

  /**
   * Each group's aggregate states: per aggregate its flag (Byte) and value, see {@link
   * Accumulator#read}.
   */
  public final List<Object[][]> states;

  /** The value Spark would have failed on (ANSI mode), or null. */
  public final ValueExpression.OutOfRange failure;

  /** Rows left out because their keys are not keys of the table (the spec skips them). */
  public final long badKeys;

  /** A row key that is not a key of the table, which fails the aggregation; or null. */
  public final byte[] badKey;

  /**
   * Over a global index's rows, the keys of the index rows the batch did not fold in, which the
   * client checks against their data rows; empty otherwise.
   */
  public final List<byte[]> toCheck;

  private AggregateBatch(
      long rowsScanned,
      byte sentFor,
      List<byte[][]> keys,
      List<Object[][]> states,
      ValueExpression.OutOfRange failure,
      long badKeys,
      byte[] badKey,
      List<byte[]> toCheck) {
    this.rowsScanned = rowsScanned;
    this.sentFor = sentFor;
    this.keys = keys;
    this.states = states;
    this.failure = failure;
    this.badKeys = badKeys;
    this.badKey = badKey;
    this.toCheck = toCheck;
  }

  /**
   * Whether a Result of an aggregating scan is a batch; otherwise it is a row the client must fold
   * in itself.
   */
  public static boolean isBatch(Result result) {
    Cell[] cells = result.rawCells();
    return cells != null && cells.length == 1 && isBatchCell(cells[0]);
  }

  private static boolean isBatchCell(Cell cell) {
    return Bytes.equals(
            cell.getFamilyArray(),
            cell.getFamilyOffset(),
            cell.getFamilyLength(),
            FAMILY,
            0,
            FAMILY.length)
        && Bytes.equals(
            cell.getQualifierArray(),
            cell.getQualifierOffset(),
            cell.getQualifierLength(),
            QUALIFIER,
            0,
            QUALIFIER.length);
  }

  static Cell cell(byte[] row, byte[] value) {
    return CellBuilderFactory.create(CellBuilderType.DEEP_COPY)
        .setRow(row)
        .setFamily(FAMILY)
        .setQualifier(QUALIFIER)
        .setTimestamp(HConstants.LATEST_TIMESTAMP)
        .setType(Cell.Type.Put)
        .setValue(value)
        .build();
  }

  public static AggregateBatch read(AggregateSpec spec, Result result) throws IOException {
    Cell cell = result.rawCells()[0];
    byte[] value =
        java.util.Arrays.copyOfRange(
            cell.getValueArray(),
            cell.getValueOffset(),
            cell.getValueOffset() + cell.getValueLength());
    return read(spec, value);
  }

  public static AggregateBatch read(AggregateSpec spec, byte[] value) throws IOException {
    DataInputStream in = Wire.input(value);
    int version = Wire.readVersion(in, "A spark-hbase-sql aggregate batch");
    long rowsScanned = in.readLong();
    byte sentFor = version >= 2 ? in.readByte() : ENDED;
    if (sentFor < ENDED || sentFor > MEMORY)
      throw new IOException("Corrupt aggregate batch: sent for " + sentFor);
    int n = in.readInt();
    if (n < 0 || n > in.available())
      throw new IOException("Corrupt aggregate batch: " + n + " groups");
    List<byte[][]> keys = new ArrayList<>(n);
    List<Object[][]> states = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      byte[][] key = new byte[spec.groupBy.length][];
      for (int g = 0; g < key.length; g++) key[g] = in.readBoolean() ? Wire.readBytes(in) : null;
      Object[][] state = new Object[spec.aggregates.length][];
      for (int a = 0; a < state.length; a++) state[a] = Accumulator.read(spec.aggregates[a], in);
      keys.add(key);
      states.add(state);
    }
    ValueExpression.OutOfRange failure =
        in.readBoolean() ? ValueExpression.OutOfRange.read(in) : null;
    long badKeys = 0;
    byte[] badKey = null;
    if (AggregateSpec.checksKeys(version)) {
      badKeys = in.readLong();
      if (badKeys < 0) throw new IOException("Corrupt aggregate batch: " + badKeys + " bad keys");
      if (in.readBoolean()) badKey = Wire.readBytes(in);
    }
    List<byte[]> toCheck = new ArrayList<>();
    if (spec.overIndex != null) {
      int k = in.readInt();
      if (k < 0 || k > in.available())
        throw new IOException("Corrupt aggregate batch: " + k + " rows to check");
      for (int i = 0; i < k; i++) toCheck.add(Wire.readBytes(in));
    }
    if (in.available() > 0)
      throw new IOException("Corrupt aggregate batch: " + in.available() + " trailing bytes");
    return new AggregateBatch(
        rowsScanned, sentFor, keys, states, failure, badKeys, badKey, toCheck);
  }
}
