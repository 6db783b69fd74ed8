// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The encoding of values in cells, in one place: what HBase's own {@code Bytes.toBytes} writes for
 * the types Java clients store (big-endian numbers, IEEE floats, a BigDecimal as its scale then its
 * unscaled two's complement), so that cells other tools wrote read as they are. The Spark side
 * writes and reads cells with it, and region servers read cells with it. A cell of the wrong width
 * for its type has no value (NULL).
 */
public final class CellBytes {
  private static final long[] LONG_POWERS_OF_TEN = new long[OrderedBytes.MAX_LONG_DIGITS + 1];

  static {
    LONG_POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < LONG_POWERS_OF_TEN.length; i++)
      LONG_POWERS_OF_TEN[i] = LONG_POWERS_OF_TEN[i - 1] * 10;
  }

  private CellBytes() {}

  // --- Writing

  /** TRUE is 0xFF, as Bytes.toBytes(true) writes it. */
  public static byte[] ofBoolean(boolean v) {
    return new byte[] {(byte) (v ? -1 : 0)};
  }

  /** The low {@code width} bytes of {@code v} (sign-extended beyond 8), most significant first. */
  public static byte[] ofIntegral(long v, int width) {
    byte[] out = new byte[width];
    for (int i = width - 1; i >= 0; i--) {
      out[i] = (byte) v;
      v >>= 8;
    }
    return out;
  }

  public static byte[] ofFloat(float v) {
    return ofIntegral(Float.floatToRawIntBits(v), 4);
  }

  public static byte[] ofDouble(double v) {
    return ofIntegral(Double.doubleToRawLongBits(v), 8);
  }

  public static byte[] ofDecimal(BigDecimal v) {
    byte[] unscaled = v.unscaledValue().toByteArray();
    byte[] out = new byte[4 + unscaled.length];
    writeInt(out, v.scale());
    System.arraycopy(unscaled, 0, out, 4, unscaled.length);
    return out;
  }

  /** {@link #ofDecimal} of {@code unscaled} at {@code scale}, without a BigDecimal. */
  public static byte[] ofDecimal(long unscaled, int scale) {
    // As BigInteger.toByteArray: the fewest bytes of two's complement that keep the sign.
    int width = (64 - Long.numberOfLeadingZeros(unscaled < 0 ? ~unscaled : unscaled)) / 8 + 1;
    byte[] out = ofIntegral(unscaled, 4 + width);
    writeInt(out, scale);
    return out;
  }

  // --- Reading

  public static boolean getBoolean(byte[] b, int off) {
    return b[off] != 0;
  }

  /** A big-endian signed number of {@code width} bytes (1 to 8). */
  public static long getIntegral(byte[] b, int off, int width) {
    long v = b[off]; // sign-extended
    for (int i = off + 1; i < off + width; i++) v = (v << 8) | (b[i] & 0xFF);
    return v;
  }

  public static float getFloat(byte[] b, int off) {
    return Float.intBitsToFloat((int) getIntegral(b, off, 4));
  }

  public static double getDouble(byte[] b, int off) {
    return Double.longBitsToDouble(getIntegral(b, off, 8));
  }

  /**
   * Whether a decimal cell is at the column's {@code scale} with an unscaled value that fits a
   * LONG: then {@link #compactUnscaled} reads it without a BigDecimal.
   */
  public static boolean isCompactDecimal(int scale, byte[] b, int off, int length) {
    return length > 4 && length <= 12 && (int) getIntegral(b, off, 4) == scale;
  }

  /** The unscaled value of a cell for which {@link #isCompactDecimal} holds. */
  public static long compactUnscaled(byte[] b, int off, int length) {
    return getIntegral(b, off + 4, length - 4);
  }

  /** Whether an unscaled LONG has at most {@code precision} (up to 18) digits. */
  public static boolean fitsPrecision(long unscaled, int precision) {
    long bound = LONG_POWERS_OF_TEN[precision];
    return unscaled > -bound && unscaled < bound;
  }

  /**
   * The decimal cell's value at the column's DECIMAL(precision, scale) (see {@link DecimalFit}), or
   * null when it is not one or does not fit.
   */
  public static BigDecimal getDecimal(int precision, int scale, byte[] b, int off, int length) {
    if (length <= 4) return null;
    if (precision <= OrderedBytes.MAX_LONG_DIGITS && isCompactDecimal(scale, b, off, length)) {
      long unscaled = compactUnscaled(b, off, length);
      return fitsPrecision(unscaled, precision) ? BigDecimal.valueOf(unscaled, scale) : null;
    }
    int cellScale = (int) getIntegral(b, off, 4);
    BigInteger unscaled = new BigInteger(java.util.Arrays.copyOfRange(b, off + 4, off + length));
    return DecimalFit.fit(new BigDecimal(unscaled, cellScale), precision, scale);
  }

  private static void writeInt(byte[] out, int v) {
    out[0] = (byte) (v >>> 24);
    out[1] = (byte) (v >>> 16);
    out[2] = (byte) (v >>> 8);
    out[3] = (byte) v;
  }
}
