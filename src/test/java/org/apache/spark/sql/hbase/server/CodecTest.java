// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Random;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * The encodings alone (OrderedBytes for keys and comparisons, CellBytes for cells, DecimalFit for
 * rescaling): order, round trips, and agreement with HBase's own Bytes, on random values.
 */
public class CodecTest {
  private static final int CASES = 20_000;
  private final Random random = new Random(20261127L);

  private static int order(byte[] a, byte[] b) {
    return Integer.signum(Arrays.compareUnsigned(a, b));
  }

  private long anyLong() {
    switch (random.nextInt(4)) {
      case 0:
        return new long[] {0, -1, 1, Long.MIN_VALUE, Long.MAX_VALUE}[random.nextInt(5)];
      case 1:
        return random.nextInt(1000) - 500;
      default:
        return random.nextLong();
    }
  }

  @Test
  public void integralBytesSortAsTheirValuesAndReadBackAtEveryWidth() {
    for (int width : new int[] {1, 2, 4, 8}) {
      for (int i = 0; i < CASES; i++) {
        long a = (anyLong() << (64 - 8 * width)) >> (64 - 8 * width); // within the width
        long b = (anyLong() << (64 - 8 * width)) >> (64 - 8 * width);
        byte[] ea = OrderedBytes.ofIntegral(a, width);
        assertEquals(width, ea.length);
        assertEquals(a, OrderedBytes.getIntegral(ea, 0, width));
        assertEquals(Long.signum(Long.compare(a, b)), order(ea, OrderedBytes.ofIntegral(b, width)));
      }
    }
  }

  @Test
  public void doublesSortInSparksTotalOrderWithOneZeroAndOneNaN() {
    double[] edges = {
      Double.NEGATIVE_INFINITY,
      -Double.MAX_VALUE,
      -1.0,
      -Double.MIN_VALUE,
      -0.0,
      0.0,
      Double.MIN_VALUE,
      1.0,
      Double.MAX_VALUE,
      Double.POSITIVE_INFINITY,
      Double.NaN
    };
    for (int i = 0; i + 1 < edges.length; i++) {
      int expected = edges[i] == 0.0 && edges[i + 1] == 0.0 ? 0 : -1; // -0.0 equals 0.0
      assertEquals(
          expected, order(OrderedBytes.ofDouble(edges[i]), OrderedBytes.ofDouble(edges[i + 1])));
    }
    assertArrayEquals(
        OrderedBytes.ofDouble(Double.NaN),
        OrderedBytes.ofDouble(Double.longBitsToDouble(0x7ff0000000000001L)));
    assertArrayEquals(
        OrderedBytes.ofFloat(Float.NaN), OrderedBytes.ofFloat(Float.intBitsToFloat(0xffc00000)));
    for (int i = 0; i < CASES; i++) {
      double a = Double.longBitsToDouble(random.nextLong());
      double b = random.nextBoolean() ? random.nextGaussian() : Double.longBitsToDouble(anyLong());
      int expected = Double.isNaN(a) && Double.isNaN(b) ? 0 : Integer.signum(Double.compare(a, b));
      if (a == 0.0 && b == 0.0) expected = 0;
      assertEquals(expected, order(OrderedBytes.ofDouble(a), OrderedBytes.ofDouble(b)));
      double back = OrderedBytes.getDouble(OrderedBytes.ofDouble(a), 0);
      assertTrue(Double.isNaN(a) ? Double.isNaN(back) : back == a);
      float f = (float) a;
      float fb = OrderedBytes.getFloat(OrderedBytes.ofFloat(f), 0);
      assertTrue(Float.isNaN(f) ? Float.isNaN(fb) : fb == f);
    }
  }

  @Test
  public void decimalsSortAsTheirValuesInBothWidths() {
    for (int i = 0; i < CASES; i++) {
      int precision = 1 + random.nextInt(DecimalFit.MAX_PRECISION);
      int scale = random.nextInt(precision + 1);
      BigDecimal a = anyDecimal(precision, scale);
      BigDecimal b = anyDecimal(precision, scale);
      byte[] ea = OrderedBytes.ofDecimal(a, precision);
      assertEquals(OrderedBytes.decimalWidth(precision), ea.length);
      assertEquals(a, OrderedBytes.getDecimal(ea, 0, ea.length, scale));
      assertEquals(Integer.signum(a.compareTo(b)), order(ea, OrderedBytes.ofDecimal(b, precision)));
    }
  }

  private BigDecimal anyDecimal(int precision, int scale) {
    int digits = 1 + random.nextInt(precision);
    BigInteger unscaled = new BigInteger(digits * 4, random);
    while (unscaled.toString().length() > precision) unscaled = unscaled.divide(BigInteger.TEN);
    return new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), scale);
  }

  @Test
  public void escapedTextSortsAsItsBytesWithAShorterValueFirstAndCutsBackExactly() {
    for (int i = 0; i < CASES; i++) {
      byte[] a = anyText();
      byte[] b = random.nextBoolean() ? anyText() : Arrays.copyOf(a, random.nextInt(a.length + 1));
      byte[] ea = escaped(a);
      byte[] eb = escaped(b);
      int expected = Integer.signum(Arrays.compareUnsigned(a, b));
      assertEquals(expected, order(ea, eb));
      // Followed by the next key column's bytes, a value still sorts as it does alone.
      byte[] followed = Arrays.copyOf(ea, ea.length + 1);
      followed[ea.length] = (byte) random.nextInt();
      if (expected != 0) assertEquals(expected, order(followed, eb));
      assertEquals(ea.length, OrderedBytes.escapedEnd(followed, 0, followed.length));
      assertArrayEquals(a, OrderedBytes.unescape(followed, 0, ea.length));
    }
    // A 0x00 that is neither an escape nor a terminator, and no terminator at all.
    assertEquals(-1, OrderedBytes.escapedEnd(new byte[] {'a', 0, 1, 0, 0}, 0, 5));
    assertEquals(-1, OrderedBytes.escapedEnd(new byte[] {'a', 0, -1}, 0, 3));
  }

  private byte[] anyText() {
    byte[] bytes = new byte[random.nextInt(6)];
    for (int i = 0; i < bytes.length; i++)
      bytes[i] = (byte) new int[] {0, 0xFF, 1, 'a', random.nextInt(256)}[random.nextInt(5)];
    return bytes;
  }

  private static byte[] escaped(byte[] value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OrderedBytes.writeEscaped(out, value, false);
    return out.toByteArray();
  }

  @Test
  public void cellsAreTheBytesOfHBasesOwnBytesToBytes() {
    for (int i = 0; i < CASES; i++) {
      long v = anyLong();
      assertArrayEquals(Bytes.toBytes(v), CellBytes.ofIntegral(v, 8));
      assertArrayEquals(Bytes.toBytes((int) v), CellBytes.ofIntegral((int) v, 4));
      assertArrayEquals(Bytes.toBytes((short) v), CellBytes.ofIntegral((short) v, 2));
      assertEquals(v, CellBytes.getIntegral(Bytes.toBytes(v), 0, 8));
      assertEquals((short) v, CellBytes.getIntegral(Bytes.toBytes((short) v), 0, 2));
      double d = Double.longBitsToDouble(v);
      assertArrayEquals(Bytes.toBytes(d), CellBytes.ofDouble(d));
      assertArrayEquals(Bytes.toBytes((float) d), CellBytes.ofFloat((float) d));
      int precision = 1 + random.nextInt(DecimalFit.MAX_PRECISION);
      int scale = random.nextInt(precision + 1);
      BigDecimal decimal = anyDecimal(precision, scale);
      assertArrayEquals(Bytes.toBytes(decimal), CellBytes.ofDecimal(decimal));
      byte[] cell = Bytes.toBytes(decimal);
      assertEquals(decimal, CellBytes.getDecimal(precision, scale, cell, 0, cell.length));
      if (precision <= OrderedBytes.MAX_LONG_DIGITS) {
        assertArrayEquals(
            Bytes.toBytes(decimal),
            CellBytes.ofDecimal(decimal.unscaledValue().longValue(), scale));
      }
    }
    assertArrayEquals(Bytes.toBytes(true), CellBytes.ofBoolean(true));
    assertArrayEquals(Bytes.toBytes(false), CellBytes.ofBoolean(false));
  }

  private static BigDecimal cell(int precision, int scale, BigDecimal written) {
    byte[] cell = Bytes.toBytes(written);
    return CellBytes.getDecimal(precision, scale, cell, 0, cell.length);
  }

  @Test
  public void aDecimalCellIsRoundedHalfUpToItsColumnOrHasNoValue() {
    assertEquals(new BigDecimal("1.01"), cell(5, 2, new BigDecimal("1.005")));
    assertEquals(new BigDecimal("-1.01"), cell(5, 2, new BigDecimal("-1.005")));
    assertEquals(new BigDecimal("1000.00"), cell(6, 2, new BigDecimal("1E+3")));
    assertNull(cell(5, 2, new BigDecimal("999.995")));
    assertEquals(new BigDecimal("-999.99"), DecimalFit.fit(new BigDecimal("-999.994"), 5, 2));
    assertNull(CellBytes.getDecimal(5, 2, new byte[] {0, 0, 0, 2}, 0, 4)); // no unscaled bytes
    // Scales far from the column's are decided from the digits, not by computing 10^(10^9).
    assertNull(DecimalFit.fit(new BigDecimal(BigInteger.ONE, -1_000_000_000), 38, 2));
    assertEquals(
        new BigDecimal("0.00"),
        DecimalFit.fit(new BigDecimal(BigInteger.ONE, 1_000_000_000), 38, 2));
    assertEquals(
        new BigDecimal("0.00"), DecimalFit.fit(new BigDecimal(BigInteger.ZERO, 999), 3, 2));
  }
}
