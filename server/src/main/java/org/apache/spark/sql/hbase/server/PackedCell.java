// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * The packed row layout: every mapped column of one family of one row in a single cell, so that a
 * region server reads one cell where it read one per column. The one implementation of the layout,
 * for both sides; {@link PackedCellWriter} writes it. Each value is the bytes {@link CellBytes}
 * gives it in a cell of its own.
 *
 * <pre>
 *   version     1 byte, 1
 *   widths      1 byte: how many bytes each offset takes (1, 2 or 4)
 *   columns     unsigned LEB128: n, the columns the row was written with
 *   presence    ceil(n / 8) bytes: bit i (bit i % 8 of byte i / 8, least significant first) is set
 *               when column i has a value; a NULL has no bytes
 *   ends        one offset per present column but the last: where its value ends in the values
 *   values      the present columns' values, in column order
 * </pre>
 *
 * Column i is found from the presence bits before it and two offsets, without reading the other
 * values. A column added later (ALTER TABLE ADD COLUMN) is at an index at or above an old row's n,
 * and reads as NULL; a dropped column keeps its index, and is not read.
 */
public final class PackedCell {
  public static final byte VERSION = 1;

  /** The qualifier of a packed cell: the empty one, which no mapped column may have. */
  public static final byte[] QUALIFIER = new byte[0];

  /** Most columns of a family in one packed cell. */
  public static final int MAX_COLUMNS = 1 << 16;

  private final byte[] bytes;
  private final int columns;
  private final int presenceAt;
  private final int width;
  private final int endsAt;
  private final int valuesAt;
  private final int valuesLength;
  private final int present;

  private PackedCell(
      byte[] bytes,
      int columns,
      int presenceAt,
      int width,
      int endsAt,
      int valuesAt,
      int valuesLength,
      int present) {
    this.bytes = bytes;
    this.columns = columns;
    this.presenceAt = presenceAt;
    this.width = width;
    this.endsAt = endsAt;
    this.valuesAt = valuesAt;
    this.valuesLength = valuesLength;
    this.present = present;
  }

  /** Thrown for bytes that are not a packed cell: truncated, of another version, offsets astray. */
  public static final class Malformed extends Exception {
    Malformed(String message) {
      super(message);
    }
  }

  /**
   * Reads the header of the packed cell at {@code bytes[offset, offset + length)} and checks every
   * offset, so that reading a column afterwards never leaves the cell.
   */
  public static PackedCell read(byte[] bytes, int offset, int length) throws Malformed {
    int limit = offset + length;
    if (length < 3) throw new Malformed("a packed cell of " + length + " bytes has no header");
    if (bytes[offset] != VERSION)
      throw new Malformed("packed cell version " + bytes[offset] + ", not " + VERSION);
    int width = bytes[offset + 1];
    if (width != 1 && width != 2 && width != 4)
      throw new Malformed("offsets of " + width + " bytes");
    int[] at = {offset + 2};
    long columns = UnsignedLeb128.read(bytes, at, limit, 3);
    if (columns < 0) throw new Malformed("the column count is cut or too large");
    if (columns > MAX_COLUMNS) throw new Malformed(columns + " columns");
    int n = (int) columns;
    int presenceAt = at[0];
    int presenceBytes = (n + 7) / 8;
    if (limit - presenceAt < presenceBytes) throw new Malformed("the presence bits are cut");
    int present = 0;
    for (int i = 0; i < presenceBytes; i++)
      present += Integer.bitCount(bytes[presenceAt + i] & 0xFF);
    if (n % 8 != 0 && (bytes[presenceAt + presenceBytes - 1] & 0xFF) >>> (n % 8) != 0)
      throw new Malformed("presence bits beyond column " + n);
    int endsAt = presenceAt + presenceBytes;
    long endsBytes = (long) Math.max(present - 1, 0) * width;
    if (limit - endsAt < endsBytes) throw new Malformed("the offsets are cut");
    int valuesAt = endsAt + (int) endsBytes;
    int valuesLength = limit - valuesAt;
    PackedCell cell =
        new PackedCell(bytes, n, presenceAt, width, endsAt, valuesAt, valuesLength, present);
    int previous = 0;
    for (int r = 0; r + 1 < present; r++) {
      int end = cell.end(r);
      if (end < previous || end > valuesLength)
        throw new Malformed("value " + r + " ends at " + end + " of " + valuesLength);
      previous = end;
    }
    if (present == 0 && valuesLength != 0)
      throw new Malformed(valuesLength + " value bytes and no value");
    return cell;
  }

  /** The columns the row was written with. */
  public int columns() {
    return columns;
  }

  /** Whether column {@code i} has a value; a column at or beyond {@link #columns()} has none. */
  public boolean has(int i) {
    return i >= 0 && i < columns && (bytes[presenceAt + (i >>> 3)] & (1 << (i & 7))) != 0;
  }

  /** The bytes that hold the values; see {@link #valueOffset} and {@link #valueLength}. */
  public byte[] bytes() {
    return bytes;
  }

  /** Where column {@code i}'s value starts in {@link #bytes()}; the column must have a value. */
  public int valueOffset(int i) {
    int r = rank(i);
    return valuesAt + (r == 0 ? 0 : end(r - 1));
  }

  /** How many bytes column {@code i}'s value takes; the column must have a value. */
  public int valueLength(int i) {
    int r = rank(i);
    int start = r == 0 ? 0 : end(r - 1);
    return (r == present - 1 ? valuesLength : end(r)) - start;
  }

  /** Column {@code i}'s value as a copy, or null for NULL. */
  public byte[] value(int i) {
    if (!has(i)) return null;
    int from = valueOffset(i);
    return java.util.Arrays.copyOfRange(bytes, from, from + valueLength(i));
  }

  /** How many columns before {@code i} have values. */
  private int rank(int i) {
    int r = 0;
    int fullBytes = i >>> 3;
    for (int b = 0; b < fullBytes; b++) r += Integer.bitCount(bytes[presenceAt + b] & 0xFF);
    int partial = i & 7;
    if (partial != 0) r += Integer.bitCount(bytes[presenceAt + fullBytes] & ((1 << partial) - 1));
    return r;
  }

  /** Where the value of rank {@code r} ends, relative to the values. */
  private int end(int r) {
    int at = endsAt + r * width;
    switch (width) {
      case 1:
        return bytes[at] & 0xFF;
      case 2:
        return ((bytes[at] & 0xFF) << 8) | (bytes[at + 1] & 0xFF);
      default:
        return (int) CellBytes.getIntegral(bytes, at, 4);
    }
  }
}
