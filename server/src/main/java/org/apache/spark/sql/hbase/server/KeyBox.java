// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A box of the key space: for each dimension, sorted disjoint slice ranges; a row key is in the box
 * when every dimension's slice is in one of its dimension's ranges. {@code rowStart} and {@code
 * rowStop} bound the box's row keys, [rowStart, rowStop), an empty rowStop being open.
 */
public final class KeyBox {
  /** Returned by {@link #seek} for a key inside the box. */
  static final byte[] MATCH = new byte[0];

  final byte[] rowStart;
  final byte[] rowStop;
  private final SliceRange[][] ranges;

  public KeyBox(byte[] rowStart, byte[] rowStop, SliceRange[][] ranges) {
    for (SliceRange[] dim : ranges) {
      if (dim.length == 0)
        throw new IllegalArgumentException("every dimension of a box needs a range");
    }
    this.rowStart = rowStart;
    this.rowStop = rowStop;
    this.ranges = ranges;
  }

  int dimensions() {
    return ranges.length;
  }

  /**
   * For a key at or after rowStart: {@link #MATCH} when it is in the box; otherwise the least key
   * above it that may be in the box, or null when no key above it is. Like an odometer: the first
   * dimension outside its ranges moves up to its next range; a dimension with no range left moves
   * the dimension before it up by one slice.
   */
  byte[] seek(KeyLayout layout, byte[] key, int offset, int length) {
    int dims = ranges.length;
    int[] starts = new int[dims];
    int[] ends = new int[dims];
    int[] in = new int[dims];
    int limit = offset + length;
    int pos = offset;
    for (int d = 0; d < dims; d++) {
      int end = layout.end(key, pos, limit, d);
      if (end < 0) return MATCH; // not a key of this table's layout: the reader reports it
      SliceRange[] rs = ranges[d];
      int j = firstRangeNotBelow(rs, key, pos, end - pos);
      if (j == rs.length) return carry(layout, key, offset, starts, ends, in, d - 1);
      SliceRange r = rs[j];
      if (r.start.length > 0
          && Bytes.compareTo(key, pos, end - pos, r.start, 0, r.start.length) < 0) {
        return seekKey(key, offset, pos, r, d);
      }
      starts[d] = pos;
      ends[d] = end;
      in[d] = j;
      pos = end;
    }
    return MATCH;
  }

  /**
   * The next key whose dimensions before {@code dim} are unchanged and whose {@code dim} slice is
   * larger.
   */
  private byte[] carry(
      KeyLayout layout, byte[] key, int offset, int[] starts, int[] ends, int[] in, int dim) {
    for (int d = dim; d >= 0; d--) {
      SliceRange current = ranges[d][in[d]];
      byte[] after = prefixEnd(key, starts[d], ends[d]);
      if (after != null && (current.stop.length == 0 || Bytes.compareTo(after, current.stop) < 0)) {
        // A fixed-width slice plus one is the next value's slice, so later bounds may follow it.
        boolean isValue = layout.isFixed(d) && after.length == ends[d] - starts[d];
        return seekKey(key, offset, starts[d], new SliceRange(after, isValue, current.stop), d);
      }
      if (in[d] + 1 < ranges[d].length)
        return seekKey(key, offset, starts[d], ranges[d][in[d] + 1], d);
    }
    return null;
  }

  /**
   * The key prefix before {@code at}, then range r's start on dimension dim, then the least bounds
   * after it.
   */
  private byte[] seekKey(byte[] key, int offset, int at, SliceRange r, int dim) {
    int length = at - offset + r.start.length;
    int d = dim + 1;
    boolean exact = r.startIsValue;
    while (exact && d < ranges.length && ranges[d][0].start.length > 0) {
      length += ranges[d][0].start.length;
      exact = ranges[d][0].startIsValue;
      d++;
    }
    byte[] out = new byte[length];
    System.arraycopy(key, offset, out, 0, at - offset);
    int n = at - offset;
    System.arraycopy(r.start, 0, out, n, r.start.length);
    n += r.start.length;
    for (int e = dim + 1; e < d; e++) {
      byte[] s = ranges[e][0].start;
      System.arraycopy(s, 0, out, n, s.length);
      n += s.length;
    }
    return out;
  }

  private static int firstRangeNotBelow(SliceRange[] rs, byte[] key, int from, int length) {
    int lo = 0;
    int hi = rs.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      byte[] stop = rs[mid].stop;
      if (stop.length > 0 && Bytes.compareTo(key, from, length, stop, 0, stop.length) >= 0)
        lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The least bytes above every string starting with key[from, end); null when there are none. */
  static byte[] prefixEnd(byte[] key, int from, int end) {
    int n = end;
    while (n > from && key[n - 1] == (byte) 0xFF) n--;
    if (n == from) return null;
    byte[] out = new byte[n - from];
    System.arraycopy(key, from, out, 0, n - from);
    out[out.length - 1]++;
    return out;
  }

  void write(DataOutputStream out) throws IOException {
    Wire.writeBytes(out, rowStart);
    Wire.writeBytes(out, rowStop);
    out.writeInt(ranges.length);
    for (SliceRange[] dim : ranges) {
      out.writeInt(dim.length);
      for (SliceRange r : dim) r.write(out);
    }
  }

  static KeyBox read(DataInputStream in) throws IOException {
    byte[] rowStart = Wire.readBytes(in);
    byte[] rowStop = Wire.readBytes(in);
    int dims = in.readInt();
    if (dims <= 0 || dims > 1024) throw new IOException("Corrupt key box: " + dims + " dimensions");
    SliceRange[][] ranges = new SliceRange[dims][];
    for (int d = 0; d < dims; d++) {
      int n = in.readInt();
      if (n <= 0 || n > in.available()) throw new IOException("Corrupt key box: " + n + " ranges");
      ranges[d] = new SliceRange[n];
      for (int i = 0; i < n; i++) ranges[d][i] = SliceRange.read(in);
    }
    return new KeyBox(rowStart, rowStop, ranges);
  }
}
