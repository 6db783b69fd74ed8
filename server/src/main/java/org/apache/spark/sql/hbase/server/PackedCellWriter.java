// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * Writes the {@link PackedCell} layout: one family's values of one row, NULLs as absent bits.
 * Trailing NULLs are not written at all (the column count stops at the last value), so a row reads
 * the same whatever columns were added after it.
 */
public final class PackedCellWriter {
  private PackedCellWriter() {}

  /** The packed cell of {@code values}, one per column in column order, null for NULL. */
  public static byte[] write(byte[][] values) {
    int n = values.length;
    while (n > 0 && values[n - 1] == null) n--;
    if (n > PackedCell.MAX_COLUMNS)
      throw new IllegalArgumentException(n + " columns in one packed cell");
    int present = 0;
    long valuesLength = 0;
    for (int i = 0; i < n; i++) {
      if (values[i] != null) {
        present++;
        valuesLength += values[i].length;
      }
    }
    int width = valuesLength <= 0xFF ? 1 : valuesLength <= 0xFFFF ? 2 : 4;
    int countBytes = UnsignedLeb128.size(n);
    int presenceBytes = (n + 7) / 8;
    long size =
        2 + countBytes + presenceBytes + (long) Math.max(present - 1, 0) * width + valuesLength;
    if (size > Integer.MAX_VALUE - 8)
      throw new IllegalArgumentException("a packed cell of " + size + " bytes");
    byte[] out = new byte[(int) size];
    out[0] = PackedCell.VERSION;
    out[1] = (byte) width;
    int presenceAt = UnsignedLeb128.write(out, 2, n);
    int endAt = presenceAt + presenceBytes;
    int valueAt = endAt + Math.max(present - 1, 0) * width;
    int end = 0;
    int written = 0;
    for (int i = 0; i < n; i++) {
      byte[] v = values[i];
      if (v == null) continue;
      out[presenceAt + (i >>> 3)] |= (byte) (1 << (i & 7));
      System.arraycopy(v, 0, out, valueAt + end, v.length);
      end += v.length;
      if (++written < present) {
        for (int b = width - 1; b >= 0; b--) out[endAt++] = (byte) (end >>> (8 * b));
      }
    }
    return out;
  }
}
