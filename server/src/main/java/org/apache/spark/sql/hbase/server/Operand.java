// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * A value of a row that predicates read: a key dimension, a cell of the given type, or (from wire
 * version 4) the value in one slot of its family's packed cell (see {@link PackedCell}).
 */
public final class Operand {
  final int dimension;
  final byte[] family;
  final byte[] qualifier;
  final byte cellType;
  final int precision;
  final int scale;
  final int slot; // the slot in the family's packed cell, or -1 for a cell of its own

  private Operand(
      int dimension,
      byte[] family,
      byte[] qualifier,
      byte cellType,
      int precision,
      int scale,
      int slot) {
    this.dimension = dimension;
    this.family = family;
    this.qualifier = qualifier;
    this.cellType = cellType;
    this.precision = precision;
    this.scale = scale;
    this.slot = slot;
  }

  /** Whether operands of wire version {@code version} may read a slot of a packed cell. */
  public static boolean readsPackedCells(int version) {
    return version >= 4;
  }

  public static Operand key(int dimension) {
    if (dimension < 0) throw new IllegalArgumentException("a key dimension is not negative");
    return new Operand(dimension, null, null, (byte) 0, 0, 0, -1);
  }

  /** A cell; precision and scale matter for {@link CellType#DECIMAL} only. */
  public static Operand cell(
      byte[] family, byte[] qualifier, byte cellType, int precision, int scale) {
    if (!CellType.isKnown(cellType))
      throw new IllegalArgumentException("unknown cell type " + cellType);
    if (cellType == CellType.DECIMAL
        && (precision < 1
            || precision > DecimalFit.MAX_PRECISION
            || scale < 0
            || scale > precision)) {
      throw new IllegalArgumentException("no DECIMAL(" + precision + ", " + scale + ") cell");
    }
    return new Operand(-1, family, qualifier, cellType, precision, scale, -1);
  }

  /** The value in slot {@code slot} of family {@code family}'s packed cell. */
  public static Operand packed(byte[] family, int slot, byte cellType, int precision, int scale) {
    if (slot < 0 || slot >= PackedCell.MAX_COLUMNS)
      throw new IllegalArgumentException("no packed slot " + slot);
    Operand checked = cell(family, PackedCell.QUALIFIER, cellType, precision, scale);
    return new Operand(-1, family, checked.qualifier, cellType, precision, scale, slot);
  }

  boolean isPacked() {
    return slot >= 0;
  }

  boolean isKey() {
    return dimension >= 0;
  }

  void write(DataOutputStream out, int version) throws IOException {
    if (isPacked() && !readsPackedCells(version))
      throw new IllegalArgumentException("wire version " + version + " reads no packed cell");
    out.writeInt(dimension);
    if (!isKey()) {
      Wire.writeBytes(out, family);
      Wire.writeBytes(out, qualifier);
      out.writeByte(cellType);
      out.writeInt(precision);
      out.writeInt(scale);
      if (readsPackedCells(version)) out.writeInt(slot);
    }
  }

  static Operand read(DataInputStream in, int version) throws IOException {
    int dimension = in.readInt();
    if (dimension >= 0) return key(dimension);
    byte[] family = Wire.readBytes(in);
    byte[] qualifier = Wire.readBytes(in);
    byte type = in.readByte();
    if (!CellType.isKnown(type)) throw new IOException("Corrupt operand: cell type " + type);
    int precision = in.readInt();
    int scale = in.readInt();
    int slot = readsPackedCells(version) ? in.readInt() : -1;
    if (slot < -1) throw new IOException("Corrupt operand: slot " + slot);
    if (slot >= 0 && qualifier.length != 0)
      throw new IOException("Corrupt operand: a packed slot of a cell with a qualifier");
    return slot >= 0
        ? packed(family, slot, type, precision, scale)
        : cell(family, qualifier, type, precision, scale);
  }
}
