// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellBuilderFactory;
import org.apache.hadoop.hbase.CellBuilderType;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The wire versions a region server's jar reads, as its aggregation coprocessor tells a client that
 * asks: a scan carrying {@link #ATTRIBUTE} gets one cell in the same reserved family as aggregate
 * batches, and no rows. The answer's layout is fixed for good (oldest and newest version, then the
 * jar's build version), so that every client can read every server's. A server older than version 2
 * does not answer; see the Spark side's {@code AggregatorSupport}.
 */
public final class ServerVersions {
  /** The scan attribute that asks; its value is not read. */
  public static final String ATTRIBUTE = "spark.hbase.sql.versions";

  private static final byte[] QUALIFIER = Bytes.toBytes("spark-hbase-sql-versions");

  public final int oldest;
  public final int newest;
  public final String build;

  public ServerVersions(int oldest, int newest, String build) {
    if (oldest > newest) throw new IllegalArgumentException("versions " + oldest + " to " + newest);
    this.oldest = oldest;
    this.newest = newest;
    this.build = build;
  }

  /** What this jar reads. */
  public static ServerVersions ofThisJar() {
    return new ServerVersions(
        ServerJar.OLDEST_WIRE_VERSION, ServerJar.WIRE_VERSION, ServerJar.buildVersion());
  }

  /** Asks the region server that reads `scan`'s first region. */
  public static void askIn(Scan scan) {
    scan.setAttribute(ATTRIBUTE, new byte[] {1});
  }

  static boolean asked(Scan scan) {
    return scan.getAttribute(ATTRIBUTE) != null;
  }

  /** The newest version both this jar and that server read, or -1 when they share none. */
  public int newestShared() {
    int shared = Math.min(newest, ServerJar.WIRE_VERSION);
    return shared >= Math.max(oldest, ServerJar.OLDEST_WIRE_VERSION) ? shared : -1;
  }

  /** The answer a region server sends, as one cell at `row`. */
  Cell toCell(byte[] row) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(oldest);
      out.writeInt(newest);
      out.writeUTF(build);
      out.flush();
      return CellBuilderFactory.create(CellBuilderType.DEEP_COPY)
          .setRow(row)
          .setFamily(AggregateBatch.FAMILY)
          .setQualifier(QUALIFIER)
          .setTimestamp(HConstants.LATEST_TIMESTAMP)
          .setType(Cell.Type.Put)
          .setValue(bytes.toByteArray())
          .build();
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
  }

  /** The answer in `result`, or null when it is not one (a row, or an aggregate batch). */
  public static ServerVersions from(Result result) throws IOException {
    Cell[] cells = result.rawCells();
    if (cells == null || cells.length != 1) return null;
    Cell c = cells[0];
    boolean answer =
        Bytes.equals(
                c.getFamilyArray(),
                c.getFamilyOffset(),
                c.getFamilyLength(),
                AggregateBatch.FAMILY,
                0,
                AggregateBatch.FAMILY.length)
            && Bytes.equals(
                c.getQualifierArray(),
                c.getQualifierOffset(),
                c.getQualifierLength(),
                QUALIFIER,
                0,
                QUALIFIER.length);
    if (!answer) return null;
    DataInputStream in =
        Wire.input(
            java.util.Arrays.copyOfRange(
                c.getValueArray(), c.getValueOffset(), c.getValueOffset() + c.getValueLength()));
    try {
      return new ServerVersions(in.readInt(), in.readInt(), in.readUTF());
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt answer of a region server's versions: " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "wire versions " + oldest + " to " + newest + " (server jar " + build + ")";
  }
}
