// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;

/**
 * The operand values of the row being read, as order-preserving bytes: cells are captured as they
 * pass, key dimensions are cut out of the row key when first asked for. Values are copies, never
 * references into HBase's blocks, so they outlive the cells they came from.
 */
final class RowOperands implements RowPredicate.PartialRow {
  private final KeyLayout layout;
  private final Operand[] operands;
  private final byte[][] values;
  private final boolean[] captured;
  private final boolean readsKey;
  private final int[] cellOperands; // the operands that read cells, in the order of a row's cells
  private final int[] cellOrder; // each cell operand's place in cellOperands
  private int nextCellOperand; // the first of them the row has not passed
  private byte[] rowKey;
  private int[] sliceStarts;
  private int[] sliceEnds;

  RowOperands(KeyLayout layout, Operand[] operands) {
    boolean readsKey = false;
    for (Operand o : operands) {
      if (o.isKey() && o.dimension >= layout.dimensions()) {
        throw new IllegalArgumentException(
            "operand on key dimension " + o.dimension + " of " + layout.dimensions());
      }
      readsKey |= o.isKey();
    }
    this.layout = layout;
    this.operands = operands;
    this.values = new byte[operands.length][];
    this.captured = new boolean[operands.length];
    this.readsKey = readsKey;
    int[] cells =
        java.util.stream.IntStream.range(0, operands.length)
            .filter(i -> !operands[i].isKey())
            .toArray();
    this.cellOperands =
        ColumnOrder.sort(cells, i -> operands[i].family, i -> operands[i].qualifier);
    this.cellOrder = new int[operands.length];
    for (int k = 0; k < cellOperands.length; k++) cellOrder[cellOperands[k]] = k;
    this.packedFamilies =
        Arrays.stream(operands)
            .filter(Operand::isPacked)
            .map(o -> ByteBuffer.wrap(o.family))
            .distinct()
            .map(ByteBuffer::array)
            .toArray(byte[][]::new);
  }

  // The families whose values are packed cells: another cell there makes the row malformed.
  private final byte[][] packedFamilies;
  private Cell packedFrom; // the cell `packed` was read from
  private PackedCell packed;
  private boolean malformed;

  /**
   * Whether the row holds, in a family read as packed cells, a cell that is not a well-formed
   * packed one: its values are not known here, and Spark reports the row.
   */
  boolean malformed() {
    return malformed;
  }

  boolean readsKey() {
    return readsKey;
  }

  /** Forgets the row; {@code rowKey} (null when no operand reads the key) is the next row's. */
  void reset(byte[] rowKey) {
    this.rowKey = rowKey;
    sliceStarts = null;
    nextCellOperand = 0;
    Arrays.fill(captured, false);
    Arrays.fill(values, null);
    packedFrom = null;
    packed = null;
    malformed = false;
  }

  /**
   * Takes the row's next cell; a column's cells come newest first, and the first one is its value.
   * Returns whether the cell settled an operand: gave its value, or passed its column without it.
   */
  boolean capture(Cell cell) {
    if (packedFamilies.length > 0 && cell.getQualifierLength() != 0 && inPackedFamily(cell))
      malformed = true; // another tool's cell of one column, where values are packed
    int settledBefore = nextCellOperand;
    while (nextCellOperand < cellOperands.length) {
      int i = cellOperands[nextCellOperand];
      Operand o = operands[i];
      int order = ColumnOrder.compare(o.family, o.qualifier, cell);
      if (order > 0) break; // the operand's cell comes later, if at all
      if (order == 0) {
        captured[i] = true;
        values[i] =
            o.isPacked()
                ? packedValue(o, cell)
                : CellType.comparable(
                    o.cellType,
                    o.precision,
                    o.scale,
                    cell.getValueArray(),
                    cell.getValueOffset(),
                    cell.getValueLength());
      }
      nextCellOperand++; // past it: older versions of a found column come next, and are not its
      // value
    }
    return nextCellOperand > settledBefore;
  }

  /**
   * Whether the operand's cell may still come: cells arrive in column order, so once the row has
   * passed its column, a cell operand is its value or NULL. A key operand is known from the start.
   */
  @Override
  public boolean pending(int operand) {
    return !operands[operand].isKey() && cellOrder[operand] >= nextCellOperand;
  }

  private boolean inPackedFamily(Cell cell) {
    for (byte[] family : packedFamilies) {
      if (CellUtil.matchingFamily(cell, family)) return true;
    }
    return false;
  }

  /** A slot of the packed cell, read once per cell whatever the number of operands in it. */
  private byte[] packedValue(Operand o, Cell cell) {
    if (packedFrom != cell) {
      packedFrom = cell;
      try {
        packed =
            PackedCell.read(cell.getValueArray(), cell.getValueOffset(), cell.getValueLength());
      } catch (PackedCell.Malformed e) {
        packed = null;
        malformed = true;
      }
    }
    if (packed == null || !packed.has(o.slot)) return null;
    return CellType.comparable(
        o.cellType,
        o.precision,
        o.scale,
        packed.bytes(),
        packed.valueOffset(o.slot),
        packed.valueLength(o.slot));
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
