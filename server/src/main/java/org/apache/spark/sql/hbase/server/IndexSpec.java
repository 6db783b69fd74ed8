// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.function.BiConsumer;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A global index of a data table, as its region servers keep it (see {@link
 * IndexMaintenanceObserver}): the HBase table that holds it, the columns it is keyed by and the
 * cells it copies (covers).
 *
 * <p>An index row's key is, for each indexed column, a byte saying whether the value is NULL (0x00,
 * so NULLs sort first) or not (0x01) followed by the value's order-preserving bytes ({@link
 * CellType#comparable}; text and binaries escaped and terminated, {@link OrderedBytes}), then the
 * data row's key. A row whose indexed columns are all NULL has no index row. The index row holds
 * the {@link #STATUS} cell, whose value says whether the row was verified against its data row, and
 * the covered cells with the data row's family and qualifier.
 */
public final class IndexSpec {
  /** The coprocessor property that holds a data table's index specs, Base64 of {@link #toBytes}. */
  public static final String PROPERTY = "spark.hbase.sql.index.specs";

  /** The family of the status cell; a data table with a family of this name cannot be indexed. */
  public static final byte[] STATUS_FAMILY = Bytes.toBytes("_s");

  public static final byte[] STATUS = Bytes.toBytes("s");

  /** The status of an index row written before its data row, not yet checked against it. */
  public static final byte UNVERIFIED = 0;

  /** The status of an index row that its data row, as written, gives. */
  public static final byte VERIFIED = 1;

  /** The first wire version with indexes. */
  public static final int FIRST_VERSION = 5;

  private static final byte NULL_VALUE = 0x00;
  private static final byte SOME_VALUE = 0x01;

  final String indexTable;
  final Operand[] indexed;
  final byte[][] coveredFamilies;
  final byte[][] coveredQualifiers;

  public IndexSpec(
      String indexTable, Operand[] indexed, byte[][] coveredFamilies, byte[][] coveredQualifiers) {
    if (indexTable.isEmpty()) throw new IllegalArgumentException("an index has a table");
    if (indexed.length == 0) throw new IllegalArgumentException("an index has indexed columns");
    for (Operand o : indexed) {
      if (o.isKey()) throw new IllegalArgumentException("a key column is not indexed");
    }
    if (coveredFamilies.length != coveredQualifiers.length)
      throw new IllegalArgumentException("each covered cell has a family and a qualifier");
    for (byte[] family : coveredFamilies) {
      if (Bytes.equals(family, STATUS_FAMILY))
        throw new IllegalArgumentException("family " + Bytes.toString(family) + " is reserved");
    }
    this.indexTable = indexTable;
    this.indexed = indexed.clone();
    this.coveredFamilies = coveredFamilies.clone();
    this.coveredQualifiers = coveredQualifiers.clone();
  }

  public String indexTable() {
    return indexTable;
  }

  /**
   * The index row key of a data row whose indexed columns have these order-preserving values (null
   * for NULL), or null when all are NULL.
   */
  public byte[] rowKey(byte[][] values, byte[] dataRow) {
    boolean any = false;
    ByteArrayOutputStream out = new ByteArrayOutputStream(dataRow.length + 16);
    for (int i = 0; i < indexed.length; i++) {
      byte[] value = values[i];
      if (value == null) {
        out.write(NULL_VALUE);
        continue;
      }
      any = true;
      out.write(SOME_VALUE);
      if (indexed[i].cellType == CellType.BYTES) OrderedBytes.writeEscaped(out, value, false);
      else out.write(value, 0, value.length);
    }
    if (!any) return null;
    out.write(dataRow, 0, dataRow.length);
    return out.toByteArray();
  }

  /**
   * The data row key at the end of index row key {@code indexKey}, or null when the key is not one
   * this index makes (a part cut short, a NULL byte that is neither 0x00 nor 0x01).
   */
  public byte[] dataRowOf(byte[] indexKey) {
    int at = 0;
    boolean any = false;
    for (Operand o : indexed) {
      if (at >= indexKey.length) return null;
      byte present = indexKey[at++];
      if (present == NULL_VALUE) continue;
      if (present != SOME_VALUE) return null;
      any = true;
      if (o.cellType == CellType.BYTES) {
        at = OrderedBytes.escapedEnd(indexKey, at, indexKey.length);
        if (at < 0) return null;
      } else {
        at += CellType.comparableWidth(o.cellType, o.precision);
      }
    }
    if (!any || at >= indexKey.length) return null;
    return java.util.Arrays.copyOfRange(indexKey, at, indexKey.length);
  }

  /**
   * Adds to {@code get} every cell of a data row this index reads: its indexed and covered cells.
   */
  public void addCellsRead(Get get) {
    forEachCellRead(get::addColumn);
  }

  /** {@link #addCellsRead(Get)}, for a scan of several data rows. */
  public void addCellsRead(Scan scan) {
    forEachCellRead(scan::addColumn);
  }

  private void forEachCellRead(BiConsumer<byte[], byte[]> column) {
    for (Operand o : indexed) column.accept(o.family, o.qualifier);
    for (int i = 0; i < coveredFamilies.length; i++)
      column.accept(coveredFamilies[i], coveredQualifiers[i]);
  }

  /** The columns (family, qualifier) any of {@code specs} reads or copies, each once. */
  static List<byte[][]> columnsRead(List<IndexSpec> specs) {
    List<byte[][]> columns = new ArrayList<>();
    for (IndexSpec spec : specs) {
      spec.forEachCellRead(
          (family, qualifier) -> {
            for (byte[][] c : columns)
              if (Bytes.equals(c[0], family) && Bytes.equals(c[1], qualifier)) return;
            columns.add(new byte[][] {family, qualifier});
          });
    }
    return columns;
  }

  /** The families of {@code columns} ({@link #columnsRead}), each once. */
  static List<byte[]> familiesOf(List<byte[][]> columns) {
    List<byte[]> families = new ArrayList<>();
    for (byte[][] column : columns) {
      boolean known = false;
      for (byte[] f : families) known |= Bytes.equals(f, column[0]);
      if (!known) families.add(column[0]);
    }
    return families;
  }

  /** Whether any of {@code specs} indexes a column held in a packed cell. */
  static boolean readsPackedCells(List<IndexSpec> specs) {
    for (IndexSpec spec : specs) for (Operand o : spec.indexed) if (o.isPacked()) return true;
    return false;
  }

  /** Whether the index reads or copies any cell of {@code family}. */
  boolean readsFamily(byte[] family) {
    for (Operand o : indexed) if (Bytes.equals(o.family, family)) return true;
    for (byte[] f : coveredFamilies) if (Bytes.equals(f, family)) return true;
    return false;
  }

  /** The specs of a data table, as one payload of wire version {@code version}. */
  public static byte[] toBytes(List<IndexSpec> specs, int version) {
    if (version < FIRST_VERSION)
      throw new IllegalArgumentException("wire version " + version + " has no index");
    return Wire.toBytes(
        version,
        out -> {
          out.writeInt(specs.size());
          for (IndexSpec spec : specs) spec.write(out, version);
        });
  }

  public static String toProperty(List<IndexSpec> specs, int version) {
    return Base64.getEncoder().encodeToString(toBytes(specs, version));
  }

  public static List<IndexSpec> parseFrom(byte[] bytes) throws IOException {
    return Wire.parse(
        bytes,
        "index specs",
        in -> {
          int version = Wire.readVersion(in, "index specs");
          if (version < FIRST_VERSION)
            throw new IOException("Corrupt index specs: wire version " + version + " has none");
          int count = in.readInt();
          if (count < 0 || count > 1024)
            throw new IOException("Corrupt index specs: " + count + " indexes");
          List<IndexSpec> specs = new ArrayList<>(count);
          for (int i = 0; i < count; i++) specs.add(read(in, version));
          if (in.available() > 0) throw new IOException("Corrupt index specs: bytes left over");
          return specs;
        });
  }

  public static List<IndexSpec> fromProperty(String property) throws IOException {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(property);
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt index specs: not Base64", e);
    }
    return parseFrom(bytes);
  }

  void write(DataOutputStream out, int version) throws IOException {
    Wire.writeBytes(out, Bytes.toBytes(indexTable));
    out.writeInt(indexed.length);
    for (Operand o : indexed) o.write(out, version);
    out.writeInt(coveredFamilies.length);
    for (int i = 0; i < coveredFamilies.length; i++) {
      Wire.writeBytes(out, coveredFamilies[i]);
      Wire.writeBytes(out, coveredQualifiers[i]);
    }
  }

  static IndexSpec read(DataInputStream in, int version) throws IOException {
    String table = Bytes.toString(Wire.readBytes(in));
    int n = in.readInt();
    if (n <= 0 || n > 64) throw new IOException("Corrupt index spec: " + n + " indexed columns");
    Operand[] indexed = new Operand[n];
    for (int i = 0; i < n; i++) indexed[i] = Operand.read(in, version);
    int covered = in.readInt();
    if (covered < 0 || covered > 4096)
      throw new IOException("Corrupt index spec: " + covered + " covered cells");
    byte[][] families = new byte[covered][];
    byte[][] qualifiers = new byte[covered][];
    for (int i = 0; i < covered; i++) {
      families[i] = Wire.readBytes(in);
      qualifiers[i] = Wire.readBytes(in);
    }
    return new IndexSpec(table, indexed, families, qualifiers);
  }

  @Override
  public String toString() {
    return "index " + indexTable + " of " + indexed.length + " columns";
  }
}
