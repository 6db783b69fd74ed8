// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.RawCell;
import org.apache.hadoop.hbase.RawCellBuilder;
import org.apache.hadoop.hbase.Tag;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;

/**
 * Merges an UPDATE's new values into a row's packed cells ({@link PackedCell}) in the region
 * server, in place of the client's read, merge and conditional write.
 *
 * <p>The client sends an {@link Append} whose families are {@link PackedPatch#family} of the packed
 * families and whose values are {@link PackedPatch}es. This observer renames them to the real
 * families before HBase checks them; HBase then takes the row's lock for itself alone (an append is
 * atomic), reads the row's cells and hands them to {@link #postAppendBeforeWAL}, which writes each
 * cell merged with its patch in place of the two concatenated. No other write to the row can come
 * between the read and the write, whoever sends it. Appends that come in one call of HBase's
 * MultiRowMutationEndpoint are merged alike, in one atomic batch that holds all their rows' locks.
 * A region server without this observer refuses the append, as a table has no family of such a
 * name, and changes nothing: the client then falls back to its own read and conditional write.
 *
 * <p>An append to a row that has no cell at all (deleted since the statement read it) writes
 * nothing: an UPDATE does not bring a row back. Its result is then empty, where the result of an
 * applied one holds one empty cell.
 *
 * <p>It must run before any other observer of the table that reads appended cells ({@link
 * IndexMaintenanceObserver}): tables give it {@link ServerJar#PACKED_MERGE_PRIORITY}.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
public final class PackedMergeObserver implements RegionCoprocessor, RegionObserver {

  /** Marks an append whose families this observer renamed, for its later hooks. */
  static final String PATCH_ATTRIBUTE = "spark.hbase.sql.patch";

  private static final byte[] PREFIX = PackedPatch.FAMILY_PREFIX_BYTES;

  /** Appends whose row was gone, from the hook that saw it to the one that answers. */
  private static final ThreadLocal<Set<Mutation>> GONE =
      ThreadLocal.withInitial(() -> Collections.newSetFromMap(new IdentityHashMap<>()));

  private RegionCoprocessorEnvironment env;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(org.apache.hadoop.hbase.CoprocessorEnvironment environment) {
    env = (RegionCoprocessorEnvironment) environment;
  }

  @Override
  public Result preAppend(ObserverContext c, Append append, WALEdit edit) throws IOException {
    NavigableMap<byte[], List<Cell>> families = append.getFamilyCellMap();
    List<byte[]> patched = new ArrayList<>();
    for (byte[] family : families.keySet())
      if (Bytes.startsWith(family, PREFIX)) patched.add(family);
    if (patched.isEmpty()) {
      // Only this observer marks an append as a patch: a client's mark would merge plain bytes.
      if (append.getAttribute(PATCH_ATTRIBUTE) != null) append.setAttribute(PATCH_ATTRIBUTE, null);
      return null;
    }
    GONE.get().clear(); // one call at a time on a thread: what is left is of one that failed
    for (byte[] name : patched) {
      byte[] family = java.util.Arrays.copyOfRange(name, PREFIX.length, name.length);
      for (Cell cell : families.remove(name)) {
        if (cell.getQualifierLength() != 0)
          throw new DoNotRetryIOException("a patch of a packed cell has a qualifier");
        families
            .computeIfAbsent(family, f -> new ArrayList<>())
            .add(
                packedCell(append.getRow(), family, cell.getTimestamp(), CellUtil.cloneValue(cell))
                    .build());
      }
    }
    append.setAttribute(PATCH_ATTRIBUTE, new byte[] {1});
    return null;
  }

  @Override
  public List postAppendBeforeWAL(ObserverContext c, Mutation mutation, List cellPairs)
      throws IOException {
    if (mutation.getAttribute(PATCH_ATTRIBUTE) == null) return cellPairs;
    List<Pair<Cell, Cell>> pairs = cellPairs;
    List<Pair<Cell, Cell>> merged = new ArrayList<>(pairs.size());
    Boolean rowExists = null;
    for (Pair<Cell, Cell> pair : pairs) {
      Cell old = pair.getFirst();
      Cell appended = pair.getSecond();
      if (old == null) {
        if (rowExists == null) rowExists = rowExists(mutation.getRow());
        if (!rowExists) continue;
      }
      // HBase appended the patch to the old value: the patch is what follows it.
      int oldLength = old == null ? 0 : old.getValueLength();
      byte[] value;
      try {
        value =
            PackedPatch.applied(
                old == null ? null : old.getValueArray(),
                old == null ? 0 : old.getValueOffset(),
                oldLength,
                appended.getValueArray(),
                appended.getValueOffset() + oldLength,
                appended.getValueLength() - oldLength);
      } catch (PackedPatch.Malformed e) {
        // Named by the patch family, as a server without the merge refuses it: the client falls
        // back.
        throw new DoNotRetryIOException(PackedPatch.FAMILY_PREFIX + " refused: " + e.getMessage());
      } catch (PackedCell.Malformed e) {
        throw new DoNotRetryIOException(
            "row "
                + Bytes.toStringBinary(mutation.getRow())
                + ": its packed cell in family "
                + Bytes.toString(CellUtil.cloneFamily(appended))
                + " is malformed: "
                + e.getMessage());
      }
      RawCellBuilder builder =
          packedCell(
              mutation.getRow(), CellUtil.cloneFamily(appended), appended.getTimestamp(), value);
      if (appended instanceof RawCell) {
        List<Tag> tags = new ArrayList<>();
        ((RawCell) appended).getTags().forEachRemaining(tags::add);
        if (!tags.isEmpty()) builder.setTags(tags);
      }
      merged.add(new Pair<>(old, builder.build()));
    }
    if (merged.isEmpty()) GONE.get().add(mutation);
    return merged;
  }

  /**
   * The answer: empty where the row was gone, else one empty cell rather than the row's cells. It
   * is written into the result itself: HBase hands every observer the result it computed and keeps
   * the last one's answer, and the observers after this one (of the default priority) answer with
   * the result they were handed.
   */
  @Override
  public Result postAppend(ObserverContext c, Append append, Result result, WALEdit edit) {
    if (append.getAttribute(PATCH_ATTRIBUTE) == null) return result;
    boolean gone = GONE.get().remove(append);
    if (!append.isReturnResults())
      return result; // HBase's shared empty result, which cannot change
    Map.Entry<byte[], List<Cell>> first = append.getFamilyCellMap().firstEntry();
    Result answer =
        gone || first == null
            ? Result.create(new Cell[0])
            : Result.create(
                List.of(
                    packedCell(
                            append.getRow(),
                            first.getKey(),
                            first.getValue().get(0).getTimestamp(),
                            new byte[0])
                        .build()));
    try {
      result.copyFrom(answer);
      return result;
    } catch (UnsupportedOperationException readOnly) {
      return answer; // a result no one may change: this answer, unless a later observer answers
    }
  }

  /** A builder of the packed cell of {@code family} in {@code row}, holding {@code value}. */
  private RawCellBuilder packedCell(byte[] row, byte[] family, long timestamp, byte[] value) {
    return env.getCellBuilder()
        .clear()
        .setRow(row)
        .setFamily(family)
        .setQualifier(PackedCell.QUALIFIER)
        .setTimestamp(timestamp)
        .setType(Cell.Type.Put)
        .setValue(value);
  }

  private boolean rowExists(byte[] row) throws IOException {
    return !env.getRegion().get(new Get(row).setFilter(new FirstKeyOnlyFilter())).isEmpty();
  }
}
