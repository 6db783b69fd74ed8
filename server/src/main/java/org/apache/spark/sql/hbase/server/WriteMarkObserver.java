// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;

/**
 * Keeps a range index honest about writes that do not go through spark-hbase-sql. Before a batch of
 * mutations (puts, deletes, increments, appends, check-and-mutates) is applied to a region, the
 * rows it touches are recorded as a {@link WriteMark} in the range index table, and a bulk load
 * marks the whole region, unless each of its files names a mark that its writer recorded statistics
 * under (see {@link WriteMark#markIdOfFile}) and that is in the first half of its lease. If the
 * mark cannot be written, the write fails, so no write ever lands unmarked. One mark covers a
 * region's writes for half its lease, widening as they spread, so a steady stream of writes costs
 * one extra put per region every few minutes.
 *
 * <p>{@code CREATE INDEX} installs it on the indexed table, with {@link
 * WriteMark#INDEX_TABLE_PROPERTY} and {@link WriteMark#LEASE_PROPERTY} as properties.
 */
// Raw parameter types: HBase 3 declares these hooks with other generic bounds than HBase 2.
@SuppressWarnings("rawtypes")
public final class WriteMarkObserver implements RegionCoprocessor, RegionObserver {
  private TableName indexTable;
  private long leaseMillis;
  private RegionCoprocessorEnvironment env;

  /** The mark covering this region's writes now, and when it was written; null when none is. */
  private WriteMark current;

  private String currentId;
  private long currentFrom;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(CoprocessorEnvironment environment) throws IOException {
    CoprocessorSettings settings = new CoprocessorSettings(this, environment);
    env = settings.environment();
    indexTable = TableName.valueOf(settings.required(WriteMark.INDEX_TABLE_PROPERTY));
    leaseMillis = settings.positive(WriteMark.LEASE_PROPERTY, WriteMark.DEFAULT_LEASE_MILLIS);
  }

  @Override
  public void preBatchMutate(ObserverContext c, MiniBatchOperationInProgress batch)
      throws IOException {
    byte[] lo = null;
    byte[] hi = null;
    for (int i = 0; i < batch.size(); i++) {
      Mutation m = (Mutation) batch.getOperation(i);
      if (m == null || m.getAttribute(WriteMark.COVERED_ATTRIBUTE) != null) continue;
      byte[] row = m.getRow();
      if (lo == null || Bytes.compareTo(row, lo) < 0) lo = row;
      if (hi == null || Bytes.compareTo(row, hi) > 0) hi = row;
    }
    if (lo != null) mark(lo, hi);
  }

  /**
   * Rows of a bulk load are only known from its files: the whole region is marked, unless they are
   * recorded.
   */
  @Override
  public void preBulkLoadHFile(ObserverContext c, List familyPaths) throws IOException {
    if (recordedByWriter(familyPaths)) return;
    RegionInfo region = env.getRegionInfo();
    markRange(region.getStartKey(), region.getEndKey());
  }

  /**
   * Whether every file names a live writer's mark. Half its lease must be left, so that the load
   * lands before the lease ends, by any region server's clock within the skew a build allows.
   */
  private boolean recordedByWriter(List<?> familyPaths) throws IOException {
    Set<String> ids = new HashSet<>();
    for (Object familyPath : familyPaths) {
      String id = WriteMark.markIdOfFile(String.valueOf(((Pair<?, ?>) familyPath).getSecond()));
      if (id == null) return false;
      ids.add(id);
    }
    if (ids.isEmpty()) return false;
    TableName table = env.getRegionInfo().getTable();
    List<Get> gets = new ArrayList<>();
    for (String id : ids) {
      byte[] row = WriteMark.rowKey(table.getNamespaceAsString(), table.getQualifierAsString(), id);
      gets.add(new Get(row).addColumn(WriteMark.FAMILY, WriteMark.MARK));
    }
    Result[] marks;
    try (Table index = env.getConnection().getTable(indexTable)) {
      marks = index.get(gets);
    }
    long now = System.currentTimeMillis();
    for (Result mark : marks) {
      Cell cell = mark.getColumnLatestCell(WriteMark.FAMILY, WriteMark.MARK);
      if (cell == null) return false;
      WriteMark written = WriteMark.parseFrom(CellUtil.cloneValue(cell));
      if (now > cell.getTimestamp() + written.leaseMillis / 2) return false;
    }
    return true;
  }

  private void mark(byte[] lo, byte[] hi) throws IOException {
    markRange(lo, WriteMark.after(hi));
  }

  private synchronized void markRange(byte[] start, byte[] stop) throws IOException {
    long now = System.currentTimeMillis();
    boolean live = current != null && now < currentFrom + leaseMillis / 2;
    if (live && current.covers(start, stop)) return;
    WriteMark next;
    String id;
    long from;
    if (live) {
      next = current.widen(start, stop);
      id = currentId;
      from = currentFrom;
    } else {
      next = new WriteMark(start, stop, leaseMillis);
      from = now;
      id = env.getRegionInfo().getEncodedName() + "-" + from;
    }
    RegionInfo region = env.getRegionInfo();
    byte[] row =
        WriteMark.rowKey(
            region.getTable().getNamespaceAsString(), region.getTable().getQualifierAsString(), id);
    try (Table table = env.getConnection().getTable(indexTable)) {
      table.put(new Put(row).addColumn(WriteMark.FAMILY, WriteMark.MARK, from, next.toByteArray()));
    }
    current = next;
    currentId = id;
    currentFrom = from;
  }
}
