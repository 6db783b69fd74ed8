// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What a region server keeps of a scan's rows instead of returning them all: the {@code maxRows}
 * rows smallest by the values of the {@code sortBy} operands, each ascending or descending, with
 * NULLs first or last, as a query's ORDER BY ... LIMIT asks (see {@link TopNRegionScanner}). The
 * operands are order-preserving bytes ({@link RowOperands}), so rows are compared as unsigned bytes
 * and the region server needs no type beyond the operands' own. The scan's filter still decides
 * which rows count; the client sorts and limits again whatever comes back.
 *
 * <p>It travels as a scan attribute in wire version 5 or later (see {@link ServerJar}); a jar that
 * does not know the attribute returns every row, which the client's own top-n then takes.
 */
public final class TopNSpec {
  /** The scan attribute that carries the spec. */
  public static final String ATTRIBUTE = "spark.hbase.sql.topn";

  /** The first wire version with a top-n. */
  public static final int FIRST_VERSION = 5;

  final KeyLayout layout;
  final Operand[] operands;
  final int[] sortBy;
  final boolean[] descending;
  final boolean[] nullsFirst;
  final int maxRows;
  final int sliceMillis;

  /**
   * How row keys are checked (see {@link KeyCheck}); null: not at all. A row whose key fails it is
   * sent as it is, so that the client fails on it as it does on any other read.
   */
  final KeyCheck keyCheck;

  final int version;

  public TopNSpec(
      KeyLayout layout,
      Operand[] operands,
      int[] sortBy,
      boolean[] descending,
      boolean[] nullsFirst,
      int maxRows,
      int sliceMillis,
      KeyCheck keyCheck,
      int version) {
    Wire.checked(version);
    if (!carriesTopN(version))
      throw new IllegalArgumentException("wire version " + version + " has no top-n");
    if (sortBy.length == 0) throw new IllegalArgumentException("a top-n sorts by some operand");
    if (descending.length != sortBy.length || nullsFirst.length != sortBy.length)
      throw new IllegalArgumentException("each sort operand has a direction and a NULL order");
    for (int s : sortBy) {
      if (s < 0 || s >= operands.length)
        throw new IllegalArgumentException(
            "the top-n sorts by operand " + s + " of " + operands.length);
    }
    if (maxRows <= 0) throw new IllegalArgumentException("a top-n keeps some rows");
    if (sliceMillis <= 0) throw new IllegalArgumentException("the reading slice must be positive");
    if (keyCheck != null && keyCheck.layout() != layout)
      throw new IllegalArgumentException("a key check cuts keys by the spec's own layout");
    new RowOperands(layout, operands); // checks the operands against the layout
    this.layout = layout;
    this.operands = operands;
    this.sortBy = sortBy;
    this.descending = descending;
    this.nullsFirst = nullsFirst;
    this.maxRows = maxRows;
    this.sliceMillis = sliceMillis;
    this.keyCheck = keyCheck;
    this.version = version;
  }

  /** Whether a region server of wire version {@code version} keeps a top-n. */
  public static boolean carriesTopN(int version) {
    return version >= FIRST_VERSION;
  }

  /**
   * Compares two rows' sort values in the spec's order: NULLs where the spec puts them, whatever
   * the direction, as Spark's sort orders do; values as unsigned bytes, reversed when descending.
   */
  int compare(byte[][] a, byte[][] b) {
    for (int i = 0; i < sortBy.length; i++) {
      byte[] x = a[i];
      byte[] y = b[i];
      int c;
      if (x == null || y == null) {
        if (x == y) continue;
        c = (x == null) == nullsFirst[i] ? -1 : 1;
      } else {
        c = Bytes.compareTo(x, y);
        if (descending[i]) c = -c;
      }
      if (c != 0) return c;
    }
    return 0;
  }

  public byte[] toByteArray() {
    return Wire.toBytes(
        version,
        out -> {
          layout.write(out);
          out.writeInt(operands.length);
          for (Operand o : operands) o.write(out, version);
          out.writeInt(sortBy.length);
          for (int i = 0; i < sortBy.length; i++) {
            out.writeInt(sortBy[i]);
            out.writeBoolean(descending[i]);
            out.writeBoolean(nullsFirst[i]);
          }
          out.writeInt(maxRows);
          out.writeInt(sliceMillis);
          out.writeBoolean(keyCheck != null);
          if (keyCheck != null) keyCheck.write(out);
        });
  }

  /** Asks the region servers of {@code scan} to return only the top-n of each region's rows. */
  public void attachTo(Scan scan) {
    scan.setAttribute(ATTRIBUTE, toByteArray());
  }

  public static TopNSpec parseFrom(byte[] bytes) throws IOException {
    return Wire.parse(bytes, "top-n", TopNSpec::read);
  }

  private static TopNSpec read(DataInputStream in) throws IOException {
    int version = Wire.readVersion(in, "A spark-hbase-sql top-n");
    if (!carriesTopN(version)) throw new IOException("Corrupt top-n: wire version " + version);
    KeyLayout layout = KeyLayout.read(in);
    int n = in.readInt();
    if (n < 0 || n > in.available()) throw new IOException("Corrupt top-n: " + n + " operands");
    Operand[] operands = new Operand[n];
    for (int i = 0; i < n; i++) operands[i] = Operand.read(in, version);
    int s = in.readInt();
    if (s < 0 || s > in.available())
      throw new IOException("Corrupt top-n: " + s + " sort operands");
    int[] sortBy = new int[s];
    boolean[] descending = new boolean[s];
    boolean[] nullsFirst = new boolean[s];
    for (int i = 0; i < s; i++) {
      sortBy[i] = in.readInt();
      descending[i] = in.readBoolean();
      nullsFirst[i] = in.readBoolean();
    }
    int maxRows = in.readInt();
    int sliceMillis = in.readInt();
    KeyCheck keyCheck = in.readBoolean() ? KeyCheck.read(in, layout) : null;
    if (in.available() > 0)
      throw new IOException("Corrupt top-n: " + in.available() + " trailing bytes");
    return new TopNSpec(
        layout, operands, sortBy, descending, nullsFirst, maxRows, sliceMillis, keyCheck, version);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("top ").append(maxRows).append(" by");
    for (int i = 0; i < sortBy.length; i++) {
      sb.append(i == 0 ? " " : ", ").append("operand ").append(sortBy[i]);
      sb.append(descending[i] ? " desc" : " asc").append(nullsFirst[i] ? " nulls first" : "");
    }
    return sb.toString();
  }
}
