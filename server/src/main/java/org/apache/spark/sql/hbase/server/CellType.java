// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * How the bytes of a cell turn into the order-preserving bytes that predicates compare: the
 * encoding a value has as the last column of a binary row key (big-endian with the sign bit
 * flipped; floats ordered as Spark orders them; text and binaries as they are). A cell of the wrong
 * width for its type reads as NULL, as it does on the Spark side.
 */
public final class CellType {
  public static final byte BYTES = 1;
  public static final byte BOOLEAN = 2;
  public static final byte BYTE = 3;
  public static final byte SHORT = 4;
  public static final byte INT = 5;
  public static final byte LONG = 6;
  public static final byte FLOAT = 7;
  public static final byte DOUBLE = 8;
  public static final byte DECIMAL = 9;

  private CellType() {}

  static boolean isKnown(byte type) {
    return type >= BYTES && type <= DECIMAL;
  }

  /**
   * How many bytes a value of the type takes as comparable bytes ({@link OrderedBytes}), in a key
   * or an index key; 0 for text and binaries, whose length varies.
   */
  static int comparableWidth(byte type, int precision) {
    switch (type) {
      case BOOLEAN:
      case BYTE:
        return 1;
      case SHORT:
        return 2;
      case INT:
      case FLOAT:
        return 4;
      case LONG:
      case DOUBLE:
        return 8;
      case DECIMAL:
        return OrderedBytes.decimalWidth(precision);
      default:
        return 0;
    }
  }

  /**
   * Comparable bytes ({@link OrderedBytes}) of the cell value at bytes[offset, offset + length)
   * ({@link CellBytes}), or null for NULL.
   */
  static byte[] comparable(
      byte type, int precision, int scale, byte[] bytes, int offset, int length) {
    switch (type) {
      case BYTES:
        return java.util.Arrays.copyOfRange(bytes, offset, offset + length);
      case BOOLEAN:
        return length == 1 ? OrderedBytes.ofBoolean(CellBytes.getBoolean(bytes, offset)) : null;
      case BYTE:
      case SHORT:
      case INT:
      case LONG:
        {
          int width = type == BYTE ? 1 : type == SHORT ? 2 : type == INT ? 4 : 8;
          if (length != width) return null;
          return OrderedBytes.ofIntegral(CellBytes.getIntegral(bytes, offset, width), width);
        }
      case FLOAT:
        return length == 4 ? OrderedBytes.ofFloat(CellBytes.getFloat(bytes, offset)) : null;
      case DOUBLE:
        return length == 8 ? OrderedBytes.ofDouble(CellBytes.getDouble(bytes, offset)) : null;
      case DECIMAL:
        {
          if (precision <= OrderedBytes.MAX_LONG_DIGITS
              && CellBytes.isCompactDecimal(scale, bytes, offset, length)) {
            // The common case: no BigDecimal.
            long unscaled = CellBytes.compactUnscaled(bytes, offset, length);
            return CellBytes.fitsPrecision(unscaled, precision)
                ? OrderedBytes.ofUnscaled(unscaled)
                : null;
          }
          java.math.BigDecimal value =
              CellBytes.getDecimal(precision, scale, bytes, offset, length);
          return value == null ? null : OrderedBytes.ofDecimal(value, precision);
        }
      default:
        throw new IllegalStateException("unknown cell type " + type);
    }
  }
}
