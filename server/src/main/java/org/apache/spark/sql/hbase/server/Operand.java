package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** A value of a row that predicates read: a key dimension, or a cell of the given type. */
public final class Operand {
  final int dimension;
  final byte[] family;
  final byte[] qualifier;
  final byte cellType;
  final int precision;
  final int scale;

  private Operand(
      int dimension, byte[] family, byte[] qualifier, byte cellType, int precision, int scale) {
    this.dimension = dimension;
    this.family = family;
    this.qualifier = qualifier;
    this.cellType = cellType;
    this.precision = precision;
    this.scale = scale;
  }

  public static Operand key(int dimension) {
    if (dimension < 0) throw new IllegalArgumentException("a key dimension is not negative");
    return new Operand(dimension, null, null, (byte) 0, 0, 0);
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
    return new Operand(-1, family, qualifier, cellType, precision, scale);
  }

  boolean isKey() {
    return dimension >= 0;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeInt(dimension);
    if (!isKey()) {
      Wire.writeBytes(out, family);
      Wire.writeBytes(out, qualifier);
      out.writeByte(cellType);
      out.writeInt(precision);
      out.writeInt(scale);
    }
  }

  static Operand read(DataInputStream in) throws IOException {
    int dimension = in.readInt();
    if (dimension >= 0) return key(dimension);
    byte[] family = Wire.readBytes(in);
    byte[] qualifier = Wire.readBytes(in);
    byte type = in.readByte();
    if (!CellType.isKnown(type)) throw new IOException("Corrupt operand: cell type " + type);
    return cell(family, qualifier, type, in.readInt(), in.readInt());
  }
}
