// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.Arrays;
import java.util.Random;
import org.junit.Test;

/** The packed row layout alone: rows read back column by column, and bad bytes refused as such. */
public class PackedCellTest {
  private final Random random = new Random(35L);

  private byte[][] anyRow() {
    int n = random.nextInt(4) == 0 ? random.nextInt(300) : random.nextInt(20);
    byte[][] row = new byte[n][];
    int longValues = random.nextInt(3); // 0: short values (1-byte offsets), else 2- or 4-byte
    for (int i = 0; i < n; i++) {
      if (random.nextInt(3) == 0) continue; // NULL
      int length =
          longValues == 0 ? random.nextInt(9) : random.nextInt(longValues == 1 ? 600 : 70_000);
      int from = random.nextInt(RANDOM_BYTES.length - length + 1);
      row[i] = Arrays.copyOfRange(RANDOM_BYTES, from, from + length);
    }
    return row;
  }

  /**
   * Where values are cut from: random bytes made once. Made anew for each value, the rows' tens of
   * megabytes took most of this class's 30 seconds.
   */
  private static final byte[] RANDOM_BYTES = new byte[1 << 20];

  static {
    new Random(36L).nextBytes(RANDOM_BYTES);
  }

  private static PackedCell read(byte[] bytes) throws PackedCell.Malformed {
    return PackedCell.read(bytes, 0, bytes.length);
  }

  @Test
  public void everyColumnReadsBackAloneAndColumnsBeyondTheRowAreNull() throws Exception {
    for (int c = 0; c < 2_000; c++) {
      byte[][] row = anyRow();
      byte[] bytes = PackedCellWriter.write(row);
      // Inside a larger array, as a cell's value is.
      byte[] framed = new byte[bytes.length + 7];
      System.arraycopy(bytes, 0, framed, 3, bytes.length);
      PackedCell cell = PackedCell.read(framed, 3, bytes.length);
      for (int i = 0; i < row.length + 3; i++) {
        byte[] expected = i < row.length ? row[i] : null;
        assertEquals(expected != null, cell.has(i));
        assertArrayEquals(expected, cell.value(i));
        if (expected != null) {
          assertEquals(expected.length, cell.valueLength(i));
          assertTrue(
              Arrays.equals(
                  expected,
                  0,
                  expected.length,
                  framed,
                  cell.valueOffset(i),
                  cell.valueOffset(i) + expected.length));
        }
      }
      assertFalse(cell.has(-1));
    }
  }

  @Test
  public void nullsCostNoValueBytesAndTrailingNullsNothingAtAll() throws Exception {
    byte[] a = {1, 2, 3};
    byte[] sparse = PackedCellWriter.write(new byte[][] {a, null, null, null, a, null, null});
    // version, width, count 5, one presence byte, one end offset, six value bytes
    assertArrayEquals(new byte[] {PackedCell.VERSION, 1, 5, 0b10001, 3, 1, 2, 3, 1, 2, 3}, sparse);
    byte[] empty = PackedCellWriter.write(new byte[][] {null, null});
    assertArrayEquals(new byte[] {PackedCell.VERSION, 1, 0}, empty);
    assertEquals(0, read(empty).columns());
    assertNull(read(empty).value(0));
  }

  @Test
  public void theWorkedExampleOfTheEncodingDocIsWhatTheWriterWrites() throws Exception {
    byte[][] row = {
      CellBytes.ofIntegral(17, 4), // qty INT
      CellBytes.ofDecimal(new java.math.BigDecimal("1234.50")), // price DECIMAL(12,2)
      null, // note STRING, NULL
      "AIR".getBytes(java.nio.charset.StandardCharsets.UTF_8) // mode STRING
    };
    int[] doc = {
      0x01, 0x01, 0x04, 0x0B, 0x04, 0x0B, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x02, 0x01,
      0xE2, 0x3A, 0x41, 0x49, 0x52
    };
    byte[] expected = new byte[doc.length];
    for (int i = 0; i < doc.length; i++) expected[i] = (byte) doc[i];
    assertArrayEquals(expected, PackedCellWriter.write(row));
  }

  @Test
  public void offsetsWidenWithTheValues() throws Exception {
    for (int[] lengthAndWidth : new int[][] {{255, 1}, {256, 2}, {65535, 2}, {65536, 4}}) {
      byte[][] row = {new byte[lengthAndWidth[0] - 1], new byte[1]};
      byte[] bytes = PackedCellWriter.write(row);
      assertEquals(lengthAndWidth[1], bytes[1]);
      assertEquals(1, read(bytes).valueLength(1));
    }
  }

  @Test
  public void badBytesAreRefusedAsMalformedAndNeverReadOutsideTheCell() throws Exception {
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {}));
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {2, 1, 0}));
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {1, 3, 0}));
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {1, 1, 9, 1}));
    // presence bits beyond the column count
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {1, 1, 1, 0b10, 5}));
    // an offset past the values
    assertThrows(PackedCell.Malformed.class, () -> read(new byte[] {1, 1, 2, 0b11, 9, 1, 2}));
    int malformed = 0;
    for (int c = 0; c < 20_000; c++) {
      byte[] bytes = PackedCellWriter.write(anyRow());
      byte[] bad = mutate(bytes);
      try {
        PackedCell cell = read(bad);
        for (int i = 0; i < cell.columns() + 2; i++) {
          byte[] v = cell.value(i); // within the cell, or an exception fails the test
          if (v != null) assertTrue(cell.valueOffset(i) + v.length <= bad.length);
        }
      } catch (PackedCell.Malformed expected) {
        malformed++;
      } catch (RuntimeException e) {
        fail("bytes " + Arrays.toString(Arrays.copyOf(bad, 40)) + " threw " + e);
      }
    }
    assertTrue("only " + malformed + " of 20000 mutations refused", malformed > 5_000);
  }

  private byte[] mutate(byte[] bytes) {
    switch (random.nextInt(4)) {
      case 0:
        return Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)); // cut short
      case 1:
        {
          byte[] b = bytes.clone();
          int at = random.nextInt(Math.min(b.length, 12));
          b[at] = (byte) random.nextInt(256);
          return b;
        }
      case 2:
        {
          byte[] b = bytes.clone();
          b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
          return b;
        }
      default:
        {
          byte[] b = new byte[random.nextInt(12)];
          random.nextBytes(b);
          if (b.length > 0) b[0] = PackedCell.VERSION;
          return b;
        }
    }
  }
}
