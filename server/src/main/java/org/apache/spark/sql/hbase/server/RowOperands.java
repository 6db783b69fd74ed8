package org.apache.spark.sql.hbase.server;

import java.util.Arrays;

import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;

/**
 * The operand values of the row being read, as order-preserving bytes: cells are captured as
 * they pass, key dimensions are cut out of the row key when first asked for. Values are copies,
 * never references into HBase's blocks, so they outlive the cells they came from.
 */
final class RowOperands implements RowPredicate.Row {
  private final KeyLayout layout;
  private final Operand[] operands;
  private final byte[][] values;
  private final boolean[] captured;
  private final boolean readsKey;
  private byte[] rowKey;
  private int[] sliceStarts;
  private int[] sliceEnds;

  RowOperands(KeyLayout layout, Operand[] operands) {
    boolean readsKey = false;
    for (Operand o : operands) {
      if (o.isKey() && o.dimension >= layout.dimensions()) {
        throw new IllegalArgumentException("operand on key dimension " + o.dimension + " of " + layout.dimensions());
      }
      readsKey |= o.isKey();
    }
    this.layout = layout;
    this.operands = operands;
    this.values = new byte[operands.length][];
    this.captured = new boolean[operands.length];
    this.readsKey = readsKey;
  }

  boolean readsKey() {
    return readsKey;
  }

  /** Forgets the row; {@code rowKey} (null when no operand reads the key) is the next row's. */
  void reset(byte[] rowKey) {
    this.rowKey = rowKey;
    sliceStarts = null;
    Arrays.fill(captured, false);
    Arrays.fill(values, null);
  }

  /** Cells of a column come newest first: the first one is the value. */
  void capture(Cell cell) {
    for (int i = 0; i < operands.length; i++) {
      Operand o = operands[i];
      if (!o.isKey() && !captured[i] && CellUtil.matchingColumn(cell, o.family, o.qualifier)) {
        captured[i] = true;
        values[i] = CellType.comparable(o.cellType, o.precision, o.scale,
            cell.getValueArray(), cell.getValueOffset(), cell.getValueLength());
      }
    }
  }

  @Override
  public byte[] value(int operand) {
    Operand o = operands[operand];
    if (!o.isKey()) return values[operand];
    if (!captured[operand]) {
      captured[operand] = true;
      values[operand] = keyValue(o.dimension);
    }
    return values[operand];
  }

  private byte[] keyValue(int dim) {
    if (rowKey == null) return null;
    if (sliceStarts == null) {
      int dims = layout.dimensions();
      sliceStarts = new int[dims];
      sliceEnds = new int[dims];
      int pos = 0;
      for (int d = 0; d < dims; d++) {
        int end = pos < 0 ? -1 : layout.end(rowKey, pos, rowKey.length, d);
        sliceStarts[d] = pos;
        sliceEnds[d] = end;
        pos = end;
      }
    }
    // A key this layout cannot cut has no value here; the Spark side reports such keys.
    return sliceEnds[dim] < 0 ? null : layout.value(rowKey, sliceStarts[dim], sliceEnds[dim], dim);
  }
}
