// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.util.Arrays;

/**
 * Whether a row key is a key of its table: it cuts into the table's key columns ({@link KeyLayout})
 * with nothing left over, and each column's bytes are those the table writes for the value they
 * hold ({@link OrderedBytes}). A row another tool wrote may hold a key that decodes to values whose
 * own key is other bytes (a BOOLEAN byte of 5, a DOUBLE -0.0, a DECIMAL of more digits than its
 * column); lookups by those values would miss it, so it is not a key of the table. The Spark side
 * decides with this class too, so a region server and Spark never disagree on a row.
 */
public final class KeyCheck {
  private final KeyLayout layout;
  private final byte[] types; // a CellType per key column: how its FIXED bytes read
  private final int[] precisions; // a DECIMAL column's precision, else 0
  private final BigInteger[] wideBounds; // 10^precision for a DECIMAL of 16 bytes, else null

  public KeyCheck(KeyLayout layout, byte[] types, int[] precisions) {
    if (types.length != layout.dimensions() || precisions.length != types.length)
      throw new IllegalArgumentException("a key check needs one type per key column");
    wideBounds = new BigInteger[types.length];
    for (int d = 0; d < types.length; d++) {
      if (!CellType.isKnown(types[d]))
        throw new IllegalArgumentException("unknown key column type " + types[d]);
      if (types[d] == CellType.DECIMAL
          && (precisions[d] < 1 || precisions[d] > DecimalFit.MAX_PRECISION))
        throw new IllegalArgumentException("no DECIMAL of precision " + precisions[d]);
      if (layout.isFixed(d) && layout.width(d) != CellType.comparableWidth(types[d], precisions[d]))
        throw new IllegalArgumentException(
            "key column "
                + d
                + " is "
                + layout.width(d)
                + " bytes, not a value of type "
                + types[d]);
      if (types[d] == CellType.DECIMAL && precisions[d] > OrderedBytes.MAX_LONG_DIGITS)
        wideBounds[d] = BigInteger.TEN.pow(precisions[d]);
    }
    this.layout = layout;
    this.types = types.clone();
    this.precisions = precisions.clone();
  }

  KeyLayout layout() {
    return layout;
  }

  /** Whether {@code key} is a key of the table. */
  public boolean accepts(byte[] key) {
    int pos = 0;
    for (int d = 0; d < types.length; d++) {
      int end = layout.end(key, pos, key.length, d);
      if (end < 0) return false;
      if (layout.isFixed(d) && !holdsOwnBytes(d, key, pos)) return false;
      pos = end;
    }
    return pos == key.length;
  }

  /** Whether the FIXED column {@code d} at {@code off} is the bytes of the value it holds. */
  private boolean holdsOwnBytes(int d, byte[] key, int off) {
    switch (types[d]) {
      case CellType.BOOLEAN:
        return OrderedBytes.isBoolean(key, off);
      case CellType.FLOAT:
        return Arrays.equals(
            OrderedBytes.ofFloat(OrderedBytes.getFloat(key, off)), 0, 4, key, off, off + 4);
      case CellType.DOUBLE:
        return Arrays.equals(
            OrderedBytes.ofDouble(OrderedBytes.getDouble(key, off)), 0, 8, key, off, off + 8);
      case CellType.DECIMAL:
        if (wideBounds[d] == null)
          return CellBytes.fitsPrecision(OrderedBytes.getIntegral(key, off, 8), precisions[d]);
        return OrderedBytes.getDecimal(key, off, OrderedBytes.WIDE_DECIMAL_BYTES, 0)
                .unscaledValue()
                .abs()
                .compareTo(wideBounds[d])
            < 0;
      default:
        return true; // every bit pattern of an integral number is one value
    }
  }

  void write(DataOutputStream out) throws IOException {
    out.writeInt(types.length);
    for (int d = 0; d < types.length; d++) {
      out.writeByte(types[d]);
      out.writeInt(precisions[d]);
    }
  }

  static KeyCheck read(DataInputStream in, KeyLayout layout) throws IOException {
    int n = in.readInt();
    if (n != layout.dimensions())
      throw new IOException(
          "Corrupt key check: " + n + " key columns in a key of " + layout.dimensions());
    byte[] types = new byte[n];
    int[] precisions = new int[n];
    for (int d = 0; d < n; d++) {
      types[d] = in.readByte();
      precisions[d] = in.readInt();
    }
    return new KeyCheck(layout, types, precisions);
  }
}
