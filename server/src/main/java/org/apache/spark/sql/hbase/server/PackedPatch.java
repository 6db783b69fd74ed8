// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * New values for some columns of one family's {@link PackedCell}, as an UPDATE sends them to be
 * merged into the row's cell in the region server ({@link PackedMergeObserver}). The columns it
 * names take its values; every other column keeps the one the cell has.
 *
 * <pre>
 *   version     1 byte: the wire version ({@link ServerJar#WIRE_VERSION}), 5 or later
 *   count       unsigned LEB128: k, the columns it sets
 *   k times     column   unsigned LEB128: the column's index in the packed cell
 *               length   unsigned LEB128: 0 for NULL, else 1 + the value's length
 *               value    the value's bytes, as {@link CellBytes} gives them
 * </pre>
 */
public final class PackedPatch {
  /**
   * The first wire version with patches: a region server refuses a patch of a version outside 5 to
   * its own.
   */
  public static final int FIRST_VERSION = 5;

  /** The start of a patch's family name: a family name cannot hold ':', so no table has one. */
  public static final String FAMILY_PREFIX = "spark.hbase.sql.patch:";

  private PackedPatch() {}

  /** {@link #FAMILY_PREFIX} as bytes. */
  static final byte[] FAMILY_PREFIX_BYTES =
      FAMILY_PREFIX.getBytes(java.nio.charset.StandardCharsets.UTF_8);

  /** The family name under which a client sends the patches of packed family {@code family}. */
  public static byte[] family(byte[] family) {
    byte[] out =
        java.util.Arrays.copyOf(FAMILY_PREFIX_BYTES, FAMILY_PREFIX_BYTES.length + family.length);
    System.arraycopy(family, 0, out, FAMILY_PREFIX_BYTES.length, family.length);
    return out;
  }

  /** Thrown for bytes that are not a patch: of another version, cut, or naming a column twice. */
  public static final class Malformed extends Exception {
    Malformed(String message) {
      super(message);
    }
  }

  /** The patch that sets column {@code columns[i]} to {@code values[i]} (null for NULL). */
  public static byte[] write(int[] columns, byte[][] values) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    out.write(ServerJar.WIRE_VERSION);
    writeUnsigned(out, columns.length);
    for (int i = 0; i < columns.length; i++) {
      writeUnsigned(out, columns[i]);
      if (values[i] == null) writeUnsigned(out, 0);
      else {
        writeUnsigned(out, values[i].length + 1L);
        out.write(values[i], 0, values[i].length);
      }
    }
    return out.toByteArray();
  }

  /**
   * The packed cell that {@code cell[cellOffset, cellOffset + cellLength)} (none when {@code cell}
   * is null) becomes with the patch at {@code patch[offset, offset + length)} applied.
   */
  public static byte[] applied(
      byte[] cell, int cellOffset, int cellLength, byte[] patch, int offset, int length)
      throws Malformed, PackedCell.Malformed {
    int limit = offset + length;
    int[] at = {offset};
    if (length < 1) throw new Malformed("patch version missing");
    if (patch[offset] < FIRST_VERSION || !ServerJar.reads(patch[offset]))
      throw new Malformed(
          "patch of wire version "
              + patch[offset]
              + ", where this region server reads "
              + FIRST_VERSION
              + " to "
              + ServerJar.WIRE_VERSION);
    at[0]++;
    int count = (int) readUnsigned(patch, at, limit, PackedCell.MAX_COLUMNS);
    int[] columns = new int[count];
    byte[][] values = new byte[count][];
    int width = 0;
    for (int i = 0; i < count; i++) {
      columns[i] = (int) readUnsigned(patch, at, limit, PackedCell.MAX_COLUMNS - 1);
      long size = readUnsigned(patch, at, limit, Integer.MAX_VALUE);
      if (size > 0) {
        if (limit - at[0] < size - 1) throw new Malformed("value " + i + " is cut");
        values[i] = java.util.Arrays.copyOfRange(patch, at[0], at[0] + (int) (size - 1));
        at[0] += (int) (size - 1);
      }
      width = Math.max(width, columns[i] + 1);
    }
    if (at[0] != limit) throw new Malformed((limit - at[0]) + " bytes after the last value");
    PackedCell old = cell == null ? null : PackedCell.read(cell, cellOffset, cellLength);
    if (old != null) width = Math.max(width, old.columns());
    byte[][] merged = new byte[width][];
    if (old != null) for (int c = 0; c < old.columns(); c++) merged[c] = old.value(c);
    boolean[] set = new boolean[width];
    for (int i = 0; i < count; i++) {
      if (set[columns[i]]) throw new Malformed("column " + columns[i] + " is set twice");
      set[columns[i]] = true;
      merged[columns[i]] = values[i];
    }
    return PackedCellWriter.write(merged);
  }

  private static void writeUnsigned(java.io.ByteArrayOutputStream out, long value) {
    UnsignedLeb128.write(out, value);
  }

  private static long readUnsigned(byte[] bytes, int[] at, int limit, long max) throws Malformed {
    long value = UnsignedLeb128.read(bytes, at, limit, 6);
    if (value < 0) throw new Malformed("a number is cut or too long");
    if (value > max) throw new Malformed(value + " is above " + max);
    return value;
  }
}
