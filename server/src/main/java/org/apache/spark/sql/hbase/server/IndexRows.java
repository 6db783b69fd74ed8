// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.RawCell;
import org.apache.hadoop.hbase.TagType;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;

/**
 * Which index rows a data row has, as it is or may become: the pure part of {@link
 * IndexMaintenanceObserver}, worked out from cells alone.
 */
public final class IndexRows {
  /** The most index rows one data row may need written before its data; more fails the write. */
  static final int MAX_CANDIDATES = 256;

  private IndexRows() {}

  /**
   * Every index row the data row may have once its mutations are applied: each indexed column may
   * keep any value it has now (in any version a delete could uncover), take any value a mutation
   * writes, or become NULL where a mutation deletes.
   */
  static Set<ByteBuffer> possibleRows(
      IndexSpec spec,
      byte[] row,
      List<Cell> before,
      List<Mutation> mutations,
      Map<Mutation, List<Cell>> reckoned,
      String tableName)
      throws IOException {
    List<List<byte[]>> choices = new ArrayList<>();
    for (Operand o : spec.indexed) {
      List<byte[]> values = new ArrayList<>();
      for (Cell cell : before) {
        if (CellUtil.matchingColumn(cell, o.family, o.qualifier))
          addDistinct(values, value(o, cell));
      }
      if (values.isEmpty()) addDistinct(values, null);
      for (Mutation m : mutations) {
        if (m instanceof Delete) {
          if (deletes(m, o)) addDistinct(values, null);
          continue;
        }
        List<Cell> cells;
        if (m instanceof Increment || m instanceof Append) {
          cells = reckoned.get(m);
          if (cells == null) {
            throw new IOException(
                "writing the indexes of "
                    + tableName
                    + ": the result of an "
                    + m.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT)
                    + " was not seen; the write was not applied");
          }
        } else {
          cells = m.getFamilyCellMap().getOrDefault(o.family, List.of());
        }
        for (Cell cell : cells) {
          if (CellUtil.matchingColumn(cell, o.family, o.qualifier))
            addDistinct(values, value(o, cell));
        }
      }
      choices.add(values);
    }
    Set<ByteBuffer> keys = new LinkedHashSet<>();
    collect(spec, row, choices, 0, new byte[choices.size()][], keys, tableName);
    return keys;
  }

  private static void collect(
      IndexSpec spec,
      byte[] row,
      List<List<byte[]>> choices,
      int at,
      byte[][] chosen,
      Set<ByteBuffer> keys,
      String tableName)
      throws IOException {
    if (at == choices.size()) {
      byte[] key = spec.rowKey(chosen, row);
      if (key != null) keys.add(ByteBuffer.wrap(key));
      if (keys.size() > MAX_CANDIDATES) {
        throw new IOException(
            "writing "
                + spec.indexTable
                + ", an index of "
                + tableName
                + ": a row's versions give over "
                + MAX_CANDIDATES
                + " possible index rows; the write was not applied");
      }
      return;
    }
    for (byte[] value : choices.get(at)) {
      chosen[at] = value;
      collect(spec, row, choices, at + 1, chosen, keys, tableName);
    }
  }

  private static boolean deletes(Mutation delete, Operand o) {
    if (delete.getFamilyCellMap().isEmpty()) return true;
    List<Cell> cells = delete.getFamilyCellMap().get(o.family);
    if (cells == null) return false;
    for (Cell cell : cells) {
      Cell.Type type = cell.getType();
      if (type == Cell.Type.DeleteFamily || type == Cell.Type.DeleteFamilyVersion) return true;
      if (CellUtil.matchingQualifier(cell, o.qualifier)) return true;
    }
    return false;
  }

  private static void addDistinct(List<byte[]> values, byte[] value) {
    for (byte[] v : values) if (java.util.Arrays.equals(v, value)) return;
    values.add(value);
  }

  /** The order-preserving value of operand {@code o} in its cell, or null for NULL. */
  private static byte[] value(Operand o, Cell cell) {
    byte[] bytes = cell.getValueArray();
    int offset = cell.getValueOffset();
    int length = cell.getValueLength();
    if (o.isPacked()) {
      PackedCell packed;
      try {
        packed = PackedCell.read(bytes, offset, length);
      } catch (PackedCell.Malformed e) {
        return null; // Spark refuses to read the row; it has no value to look it up by
      }
      if (!packed.has(o.slot)) return null;
      bytes = packed.bytes();
      offset = packed.valueOffset(o.slot);
      length = packed.valueLength(o.slot);
    }
    return CellType.comparable(o.cellType, o.precision, o.scale, bytes, offset, length);
  }

  /**
   * The index row that a data row whose cells are {@code cells} (newest version first) has, or null
   * when its indexed columns are all NULL.
   */
  public static byte[] rowOf(IndexSpec spec, byte[] row, List<Cell> cells) {
    return spec.rowKey(latestValues(spec, cells), row);
  }

  /**
   * The index row {@code key} as verified against a data row whose cells are {@code cells} (newest
   * version first), written at {@code ts}: its status and the covered cells the data row has.
   */
  public static Put verifiedPut(IndexSpec spec, byte[] key, List<Cell> cells, long ts) {
    return indexPut(spec, key, cells, ts, IndexSpec.VERIFIED);
  }

  private static Put indexPut(IndexSpec spec, byte[] key, List<Cell> cells, long ts, byte status) {
    Put put = statusPut(key, status, ts);
    for (int i = 0; i < spec.coveredFamilies.length; i++) {
      Cell found = newest(cells, spec.coveredFamilies[i], spec.coveredQualifiers[i]);
      if (found != null)
        put.addColumn(
            spec.coveredFamilies[i], spec.coveredQualifiers[i], ts, CellUtil.cloneValue(found));
    }
    return put;
  }

  /**
   * The index row {@code key} as a data row whose cells are {@code cells} gives it, at {@code ts}:
   * {@link #verifiedPut}, then a delete of each covered cell the data row lacks.
   */
  public static RowMutations verifiedRow(IndexSpec spec, byte[] key, List<Cell> cells, long ts)
      throws IOException {
    return indexRow(spec, key, cells, ts, IndexSpec.VERIFIED);
  }

  /**
   * The index row {@code key} as the data row's {@code cells} give it, with its covered cells:
   * {@link #verifiedRow}, but left UNVERIFIED when one of the cells carries a TTL of its own
   * ({@link #expiresAlone}), so that readers check it against the data. A lone put rather than a
   * {@link RowMutations} of one: a put is atomic on its row already, and HBase applies each
   * RowMutations of a batch as a batch of its own, which cost an index write half its time.
   */
  static Row indexRow(IndexSpec spec, byte[] key, List<Cell> cells, long ts) throws IOException {
    RowMutations row =
        indexRow(
            spec, key, cells, ts, expiresAlone(cells) ? IndexSpec.UNVERIFIED : IndexSpec.VERIFIED);
    return row.getMutations().size() == 1 ? row.getMutations().get(0) : row;
  }

  private static RowMutations indexRow(
      IndexSpec spec, byte[] key, List<Cell> cells, long ts, byte status) throws IOException {
    Put put = indexPut(spec, key, cells, ts, status);
    Delete absent = new Delete(key);
    for (int i = 0; i < spec.coveredFamilies.length; i++) {
      byte[] f = spec.coveredFamilies[i];
      byte[] q = spec.coveredQualifiers[i];
      if (newest(cells, f, q) == null) absent.addColumns(f, q, ts);
    }
    return absent.isEmpty() ? RowMutations.of(List.of(put)) : RowMutations.of(List.of(put, absent));
  }

  /**
   * Whether one of {@code cells}, as a region reads them, was given a TTL of its own by its writer
   * ({@code Mutation.setTTL}, a tag on the cell): it can expire without a write, which no hook
   * sees, and leave a VERIFIED index row wrong. A column family's TTL is seen by readers instead.
   */
  static boolean expiresAlone(List<Cell> cells) {
    for (Cell cell : cells) {
      if (cell instanceof RawCell && ((RawCell) cell).getTag(TagType.TTL_TAG_TYPE).isPresent())
        return true;
    }
    return false;
  }

  static Put statusPut(byte[] key, byte status, long ts) {
    return new Put(key, ts)
        .addColumn(IndexSpec.STATUS_FAMILY, IndexSpec.STATUS, new byte[] {status});
  }

  /** The values of the indexed columns in the newest version of {@code cells}. */
  private static byte[][] latestValues(IndexSpec spec, List<Cell> cells) {
    byte[][] values = new byte[spec.indexed.length][];
    for (int i = 0; i < spec.indexed.length; i++) {
      Operand o = spec.indexed[i];
      Cell cell = newest(cells, o.family, o.qualifier);
      if (cell != null) values[i] = value(o, cell);
    }
    return values;
  }

  /**
   * The newest cell of column {@code family:qualifier} in {@code cells} (newest first), or null.
   */
  static Cell newest(List<Cell> cells, byte[] family, byte[] qualifier) {
    for (Cell cell : cells) if (CellUtil.matchingColumn(cell, family, qualifier)) return cell;
    return null;
  }
}
