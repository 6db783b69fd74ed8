// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * How a row key splits into its key columns ("dimensions"). Each dimension's slice sorts, as
 * unsigned bytes, in the same order as the whole row keys that hold it, so the skip scan can
 * compare slices with range bounds the client encoded the same way.
 *
 * <ul>
 *   <li>FIXED: a fixed number of bytes (numbers, dates, timestamps, decimals);
 *   <li>TERMINATED: bytes with 0x00 escaped as 0x00 0xFF, ending with 0x00 0x00; the slice includes
 *       the terminator;
 *   <li>DELIMITED: text up to and including a delimiter;
 *   <li>REST: the rest of the key (the last dimension only).
 * </ul>
 */
public final class KeyLayout {
  public static final byte FIXED = 1;
  public static final byte TERMINATED = 2;
  public static final byte DELIMITED = 3;
  public static final byte REST = 4;

  private final byte[] kinds;
  private final int[] widths;
  private final byte[] delimiter;

  /**
   * @param widths the width of each FIXED dimension (ignored for the others)
   */
  public KeyLayout(byte[] kinds, int[] widths, byte[] delimiter) {
    if (kinds.length == 0 || widths.length != kinds.length) {
      throw new IllegalArgumentException("a key layout needs one kind and one width per dimension");
    }
    for (int d = 0; d < kinds.length; d++) {
      byte kind = kinds[d];
      if (kind < FIXED || kind > REST)
        throw new IllegalArgumentException("unknown dimension kind " + kind);
      if (kind == REST && d != kinds.length - 1)
        throw new IllegalArgumentException("only the last dimension can be REST");
      if (kind == FIXED && widths[d] <= 0)
        throw new IllegalArgumentException("a FIXED dimension needs a width");
      if (kind == DELIMITED && delimiter.length == 0)
        throw new IllegalArgumentException("a DELIMITED dimension needs a delimiter");
    }
    this.kinds = kinds.clone();
    this.widths = widths.clone();
    this.delimiter = delimiter.clone();
  }

  public int dimensions() {
    return kinds.length;
  }

  boolean isFixed(int dim) {
    return kinds[dim] == FIXED;
  }

  /** The bytes of a FIXED dimension. */
  int width(int dim) {
    return widths[dim];
  }

  /**
   * Where dimension {@code dim}'s slice, starting at {@code from}, ends (exclusive) in {@code
   * key[.., limit)}, or -1 when the key is too short or malformed there.
   */
  public int end(byte[] key, int from, int limit, int dim) {
    switch (kinds[dim]) {
      case FIXED:
        return widths[dim] <= limit - from ? from + widths[dim] : -1; // no overflow for any width
      case TERMINATED:
        return OrderedBytes.escapedEnd(key, from, limit);
      case DELIMITED:
        for (int i = from; i + delimiter.length <= limit; i++) {
          if (matchesDelimiter(key, i)) return i + delimiter.length;
        }
        return -1;
      default:
        return limit;
    }
  }

  private boolean matchesDelimiter(byte[] key, int at) {
    for (int j = 0; j < delimiter.length; j++) {
      if (key[at + j] != delimiter[j]) return false;
    }
    return true;
  }

  /**
   * The value a slice holds, as the order-preserving bytes that predicates compare: the slice
   * without its escaping, terminator or delimiter.
   */
  public byte[] value(byte[] key, int from, int end, int dim) {
    switch (kinds[dim]) {
      case TERMINATED:
        return OrderedBytes.unescape(key, from, end);
      case DELIMITED:
        return Arrays.copyOfRange(key, from, end - delimiter.length);
      default:
        return Arrays.copyOfRange(key, from, end);
    }
  }

  void write(DataOutputStream out) throws IOException {
    out.writeInt(kinds.length);
    for (int d = 0; d < kinds.length; d++) {
      out.writeByte(kinds[d]);
      out.writeInt(widths[d]);
    }
    Wire.writeBytes(out, delimiter);
  }

  static KeyLayout read(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n <= 0 || n > 1024) throw new IOException("Corrupt key layout: " + n + " dimensions");
    byte[] kinds = new byte[n];
    int[] widths = new int[n];
    for (int d = 0; d < n; d++) {
      kinds[d] = in.readByte();
      widths[d] = in.readInt();
    }
    return new KeyLayout(kinds, widths, Wire.readBytes(in));
  }
}
