// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The order-preserving encoding of each type, in one place: comparing two encodings as unsigned
 * bytes gives the SQL order of their values. The Spark side writes and reads binary row keys with
 * it, and region servers turn cells into it to compare them with predicates' bounds.
 *
 * <ul>
 *   <li>BOOLEAN: one byte, 0 or 1;
 *   <li>integral types, dates, timestamps: big-endian two's complement with the sign bit flipped;
 *   <li>FLOAT, DOUBLE: IEEE bits, all flipped for negatives and the sign bit flipped otherwise,
 *       after -0.0 becomes 0.0 and every NaN one NaN (Spark's total order: NaN above +Infinity);
 *   <li>DECIMAL up to 18 digits: the unscaled value as a LONG; above, 16 bytes of two's complement
 *       with the sign bit flipped;
 *   <li>text and binaries: raw bytes as the last key column; elsewhere 0x00 becomes 0x00 0xFF and
 *       0x00 0x00 ends the value, so a value sorts before every longer value it starts.
 * </ul>
 */
public final class OrderedBytes {
  /** A DECIMAL of more digits than a LONG holds takes 16 bytes. */
  public static final int WIDE_DECIMAL_BYTES = 16;

  public static final int MAX_LONG_DIGITS = 18;

  private static final byte ESCAPE = 0x00;
  private static final byte ESCAPED_ZERO = (byte) 0xFF;
  private static final byte TERMINATOR = 0x00;

  private OrderedBytes() {}

  /** The bytes of a DECIMAL(precision, _) in a key. */
  public static int decimalWidth(int precision) {
    return precision <= MAX_LONG_DIGITS ? 8 : WIDE_DECIMAL_BYTES;
  }

  // --- Booleans and integral numbers

  public static byte[] ofBoolean(boolean v) {
    return new byte[] {(byte) (v ? 1 : 0)};
  }

  /** Whether {@code b[off]} is a BOOLEAN as this encoding writes one. */
  public static boolean isBoolean(byte[] b, int off) {
    return b[off] == 0 || b[off] == 1;
  }

  public static boolean getBoolean(byte[] b, int off) {
    return b[off] != 0;
  }

  /** An integral value of {@code width} bytes (1, 2, 4 or 8). */
  public static byte[] ofIntegral(long v, int width) {
    byte[] out = CellBytes.ofIntegral(v, width);
    out[0] ^= (byte) 0x80;
    return out;
  }

  /** The integral value of {@code width} bytes (1 to 8) at {@code off}. */
  public static long getIntegral(byte[] b, int off, int width) {
    long v = (byte) (b[off] ^ 0x80); // sign-extended
    for (int i = off + 1; i < off + width; i++) v = (v << 8) | (b[i] & 0xFF);
    return v;
  }

  // --- Floating point

  public static byte[] ofFloat(float f) {
    if (f == 0.0f) f = 0.0f; // -0.0 too
    int bits = Float.floatToIntBits(f); // one NaN
    return CellBytes.ofIntegral(bits < 0 ? ~bits : bits ^ Integer.MIN_VALUE, 4);
  }

  public static float getFloat(byte[] b, int off) {
    int bits = (int) CellBytes.getIntegral(b, off, 4);
    return Float.intBitsToFloat(bits < 0 ? bits ^ Integer.MIN_VALUE : ~bits);
  }

  public static byte[] ofDouble(double d) {
    if (d == 0.0d) d = 0.0d;
    long bits = Double.doubleToLongBits(d);
    return CellBytes.ofIntegral(bits < 0 ? ~bits : bits ^ Long.MIN_VALUE, 8);
  }

  public static double getDouble(byte[] b, int off) {
    long bits = CellBytes.getIntegral(b, off, 8);
    return Double.longBitsToDouble(bits < 0 ? bits ^ Long.MIN_VALUE : ~bits);
  }

  // --- Decimals

  /** A decimal's unscaled value at its column's scale, for a column of up to 18 digits. */
  public static byte[] ofUnscaled(long unscaled) {
    return ofIntegral(unscaled, 8);
  }

  /** A decimal's unscaled value at its column's scale, for a column of more than 18 digits. */
  public static byte[] ofWideUnscaled(BigInteger unscaled) {
    byte[] twos = unscaled.toByteArray();
    if (twos.length > WIDE_DECIMAL_BYTES)
      throw new IllegalArgumentException("an unscaled value of more than 38 digits: " + unscaled);
    byte[] out = new byte[WIDE_DECIMAL_BYTES];
    byte fill = (byte) (twos[0] < 0 ? -1 : 0);
    java.util.Arrays.fill(out, 0, WIDE_DECIMAL_BYTES - twos.length, fill);
    System.arraycopy(twos, 0, out, WIDE_DECIMAL_BYTES - twos.length, twos.length);
    out[0] ^= (byte) 0x80;
    return out;
  }

  /** A value already at its column's DECIMAL(precision, scale). */
  public static byte[] ofDecimal(BigDecimal fitted, int precision) {
    BigInteger unscaled = fitted.unscaledValue();
    return precision <= MAX_LONG_DIGITS
        ? ofUnscaled(unscaled.longValueExact())
        : ofWideUnscaled(unscaled);
  }

  /** The decimal of {@code width} bytes (8 or 16) at {@code off}, at {@code scale}. */
  public static BigDecimal getDecimal(byte[] b, int off, int width, int scale) {
    if (width == 8) return BigDecimal.valueOf(getIntegral(b, off, 8), scale);
    byte[] twos = java.util.Arrays.copyOfRange(b, off, off + width);
    twos[0] ^= (byte) 0x80;
    return new BigDecimal(new BigInteger(twos), scale);
  }

  // --- Text and binaries

  /** Writes {@code bytes} as a key column, escaped and terminated unless it is the last one. */
  public static void writeEscaped(ByteArrayOutputStream out, byte[] bytes, boolean isLast) {
    if (isLast) {
      out.write(bytes, 0, bytes.length);
      return;
    }
    for (byte b : bytes) {
      out.write(b);
      if (b == ESCAPE) out.write(ESCAPED_ZERO);
    }
    out.write(ESCAPE);
    out.write(TERMINATOR);
  }

  /**
   * Where an escaped value starting at {@code from} ends (after its terminator) in {@code b[..,
   * limit)}, or -1 when it has no terminator or a 0x00 that is neither escape nor terminator.
   */
  public static int escapedEnd(byte[] b, int from, int limit) {
    for (int i = from; i + 1 < limit; i++) {
      if (b[i] == ESCAPE) {
        if (b[i + 1] == TERMINATOR) return i + 2;
        if (b[i + 1] != ESCAPED_ZERO) return -1;
        i++;
      }
    }
    return -1;
  }

  /** The value an escaped slice {@code b[from, end)} (see {@link #escapedEnd}) holds. */
  public static byte[] unescape(byte[] b, int from, int end) {
    byte[] out = new byte[end - 2 - from];
    int n = 0;
    for (int i = from; i < end - 2; i++) {
      out[n++] = b[i];
      if (b[i] == ESCAPE) i++; // past the escape's 0xFF
    }
    return n == out.length ? out : java.util.Arrays.copyOf(out, n);
  }
}
