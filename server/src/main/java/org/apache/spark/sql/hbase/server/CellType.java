package org.apache.spark.sql.hbase.server;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

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

  /** An unscaled DECIMAL above 18 digits takes 16 bytes of two's complement in a key. */
  private static final int WIDE_DECIMAL_BYTES = 16;

  private static final int MAX_LONG_DIGITS = 18;
  private static final int MAX_PRECISION = 38;
  private static final long[] LONG_POWERS_OF_TEN = new long[MAX_LONG_DIGITS + 1];

  static {
    LONG_POWERS_OF_TEN[0] = 1;
    for (int i = 1; i <= MAX_LONG_DIGITS; i++)
      LONG_POWERS_OF_TEN[i] = LONG_POWERS_OF_TEN[i - 1] * 10;
  }

  private CellType() {}

  static boolean isKnown(byte type) {
    return type >= BYTES && type <= DECIMAL;
  }

  /** Comparable bytes of the cell value at bytes[offset, offset + length), or null for NULL. */
  static byte[] comparable(
      byte type, int precision, int scale, byte[] bytes, int offset, int length) {
    switch (type) {
      case BYTES:
        return java.util.Arrays.copyOfRange(bytes, offset, offset + length);
      case BOOLEAN:
        return length == 1 ? new byte[] {(byte) (bytes[offset] != 0 ? 1 : 0)} : null;
      case BYTE:
      case SHORT:
      case INT:
      case LONG:
        {
          int width = type == BYTE ? 1 : type == SHORT ? 2 : type == INT ? 4 : 8;
          if (length != width) return null;
          byte[] out = java.util.Arrays.copyOfRange(bytes, offset, offset + length);
          out[0] ^= (byte) 0x80;
          return out;
        }
      case FLOAT:
        {
          if (length != 4) return null;
          float f = Float.intBitsToFloat(readInt(bytes, offset));
          if (f == 0.0f) f = 0.0f;
          int bits = Float.floatToIntBits(f);
          return intBytes(bits < 0 ? ~bits : bits ^ Integer.MIN_VALUE);
        }
      case DOUBLE:
        {
          if (length != 8) return null;
          double d = Double.longBitsToDouble(readLong(bytes, offset));
          if (d == 0.0d) d = 0.0d;
          long bits = Double.doubleToLongBits(d);
          return longBytes(bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
        }
      case DECIMAL:
        return decimal(precision, scale, bytes, offset, length);
      default:
        throw new IllegalStateException("unknown cell type " + type);
    }
  }

  /**
   * A cell written as HBase's Bytes.toBytes(BigDecimal): the scale, then the unscaled two's
   * complement.
   */
  private static byte[] decimal(int precision, int scale, byte[] bytes, int offset, int length) {
    if (length <= 4) return null;
    int cellScale = readInt(bytes, offset);
    if (cellScale == scale && precision <= MAX_LONG_DIGITS && length <= 12) {
      // The common case, at the column's own scale and within a LONG: no BigDecimal needed.
      long unscaled = bytes[offset + 4]; // sign-extended
      for (int i = offset + 5; i < offset + length; i++)
        unscaled = (unscaled << 8) | (bytes[i] & 0xFF);
      long bound = LONG_POWERS_OF_TEN[precision];
      return unscaled > -bound && unscaled < bound ? longBytes(unscaled ^ Long.MIN_VALUE) : null;
    }
    BigInteger unscaled =
        new BigInteger(java.util.Arrays.copyOfRange(bytes, offset + 4, offset + length));
    BigDecimal cell = new BigDecimal(unscaled, cellScale);
    // Far from the column's scale (text read as a decimal has a scale near 10^9), setScale would
    // compute a huge power of ten; decide as Spark's Decimal.changePrecision does instead.
    if (cell.signum() != 0 && Math.abs((long) cellScale - scale) > MAX_PRECISION) {
      long magnitude = (long) cell.precision() - cellScale; // |cell| < 10^magnitude
      if (magnitude > precision - scale) return null; // does not fit the column
      if (magnitude < -scale - 1L)
        cell = BigDecimal.ZERO; // under half the column's unit: rounds to 0
    }
    BigDecimal value = cell.setScale(scale, RoundingMode.HALF_UP);
    if (value.precision() > precision && value.signum() != 0)
      return null; // does not fit the column: NULL
    BigInteger columnUnscaled = value.unscaledValue();
    if (precision <= MAX_LONG_DIGITS) return longBytes(columnUnscaled.longValue() ^ Long.MIN_VALUE);
    byte[] twos = columnUnscaled.toByteArray();
    byte[] out = new byte[WIDE_DECIMAL_BYTES];
    byte fill = (byte) (twos[0] < 0 ? -1 : 0);
    java.util.Arrays.fill(out, 0, WIDE_DECIMAL_BYTES - twos.length, fill);
    System.arraycopy(twos, 0, out, WIDE_DECIMAL_BYTES - twos.length, twos.length);
    out[0] ^= (byte) 0x80;
    return out;
  }

  private static int readInt(byte[] b, int o) {
    return ((b[o] & 0xFF) << 24)
        | ((b[o + 1] & 0xFF) << 16)
        | ((b[o + 2] & 0xFF) << 8)
        | (b[o + 3] & 0xFF);
  }

  private static long readLong(byte[] b, int o) {
    return ((long) readInt(b, o) << 32) | (readInt(b, o + 4) & 0xFFFFFFFFL);
  }

  private static byte[] intBytes(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  private static byte[] longBytes(long v) {
    byte[] out = new byte[8];
    for (int i = 7; i >= 0; i--) {
      out[i] = (byte) v;
      v >>>= 8;
    }
    return out;
  }
}
