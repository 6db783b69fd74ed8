// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A key range of an indexed table that was written, or may be written, from the mark's cell
 * timestamp until that time plus {@code leaseMillis}. A range index chunk built before the lease
 * ran out cannot be trusted over the range unless the writer also recorded what it wrote (see the
 * Spark side's {@code index.ChunkTrust}). Marks live in the range index table, one row each, under
 * {@link #rowPrefix}; their value is this class in the server jar's wire format.
 *
 * <p>Range index table rows: {@code <namespace:table> 0x00 'M' <mark id>} for marks, {@code
 * <namespace:table> 0x00 'C' ...} for chunk statistics (written by the Spark side only).
 */
public final class WriteMark {
  /**
   * Mutation attribute of a writer that has already accounted for the mutation's row in a mark of
   * its own, with statistics: the observer leaves such mutations alone.
   */
  public static final String COVERED_ATTRIBUTE = "spark.hbase.sql.index.covered";

  public static final byte[] FAMILY = Bytes.toBytes("s");
  public static final byte[] MARK = Bytes.toBytes("mark");

  /** Coprocessor property: the range index table that marks go to. */
  public static final String INDEX_TABLE_PROPERTY = "spark.hbase.sql.index.table";

  /** Coprocessor property: how long a mark covers writes, in milliseconds. */
  public static final String LEASE_PROPERTY = "spark.hbase.sql.index.markLeaseMillis";

  public static final long DEFAULT_LEASE_MILLIS = 300_000L;

  /**
   * Ends the name of an HFile whose rows a writer recorded, with statistics, under the mark whose
   * id follows: a bulk load of such files needs no mark of the observer's own.
   */
  public static final String FILE_MARK_SEPARATOR = "-mark-";

  public final byte[] start;

  /** Exclusive; empty is the table's end. */
  public final byte[] stop;

  public final long leaseMillis;

  public WriteMark(byte[] start, byte[] stop, long leaseMillis) {
    if (leaseMillis <= 0) throw new IllegalArgumentException("a mark's lease must be positive");
    this.start = start;
    this.stop = stop;
    this.leaseMillis = leaseMillis;
  }

  public byte[] toByteArray() {
    // Stored, and read by clients of any version in service: the oldest version, whose layout holds
    // a mark.
    return Wire.toBytes(
        ServerJar.OLDEST_WIRE_VERSION,
        out -> {
          Wire.writeBytes(out, start);
          Wire.writeBytes(out, stop);
          out.writeLong(leaseMillis);
        });
  }

  public static WriteMark parseFrom(byte[] bytes) throws IOException {
    DataInputStream in = Wire.input(bytes);
    Wire.readVersion(in, "A spark-hbase-sql write mark");
    byte[] start = Wire.readBytes(in);
    byte[] stop = Wire.readBytes(in);
    long lease = in.readLong();
    if (in.available() > 0 || lease <= 0) throw new IOException("Corrupt write mark");
    return new WriteMark(start, stop, lease);
  }

  /** Whether this mark's range holds every row of [from, to). */
  boolean covers(byte[] from, byte[] to) {
    if (Bytes.compareTo(start, from) > 0) return false;
    return stop.length == 0 || (to.length != 0 && Bytes.compareTo(to, stop) <= 0);
  }

  /** The same mark over the smallest range holding its own and [from, to). */
  WriteMark widen(byte[] from, byte[] to) {
    byte[] newStart = Bytes.compareTo(from, start) < 0 ? from : start;
    byte[] newStop =
        stop.length == 0 || to.length == 0
            ? new byte[0]
            : Bytes.compareTo(to, stop) > 0 ? to : stop;
    return new WriteMark(newStart, newStop, leaseMillis);
  }

  /** The name of an HFile whose rows are recorded under mark {@code markId}. */
  public static String fileName(String prefix, String markId) {
    return prefix + FILE_MARK_SEPARATOR + markId;
  }

  /** The id of the mark a bulk-loaded file's rows are recorded under, or null for none. */
  public static String markIdOfFile(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    int at = name.lastIndexOf(FILE_MARK_SEPARATOR);
    return at < 0 || at + FILE_MARK_SEPARATOR.length() == name.length()
        ? null
        : name.substring(at + FILE_MARK_SEPARATOR.length());
  }

  /** The first row key after {@code row}. */
  static byte[] after(byte[] row) {
    return Bytes.add(row, new byte[] {0});
  }

  /** Where the rows of one HBase table begin in the range index table. */
  public static byte[] tablePrefix(String namespace, String table) {
    return Bytes.add(Bytes.toBytes(namespace + ":" + table), new byte[] {0});
  }

  /** Where one HBase table's marks begin in the range index table. */
  public static byte[] rowPrefix(String namespace, String table) {
    return Bytes.add(tablePrefix(namespace, table), new byte[] {'M'});
  }

  public static byte[] rowKey(String namespace, String table, String markId) {
    return Bytes.add(rowPrefix(namespace, table), markId.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return "mark ["
        + Bytes.toStringBinary(start)
        + ", "
        + Bytes.toStringBinary(stop)
        + ") for "
        + leaseMillis
        + " ms";
  }
}
