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
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.RawCell;
import org.apache.hadoop.hbase.RawCellBuilder;
import org.apache.hadoop.hbase.Tag;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.filter.FirstKeyOnlyFilter;
import org.apache.hadoop.hbase.ipc.RpcCall;
import org.apache.hadoop.hbase.ipc.RpcServer;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceCall;
import org.apache.hadoop.hbase.shaded.protobuf.generated.ClientProtos.CoprocessorServiceRequest;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.apache.hadoop.hbase.wal.WALEdit;

/**
 * Merges an UPDATE's new values into a row's packed cells ({@link PackedCell}) in the region
 * server, in place of the client's read, merge and conditional write.
 *
 * <p>The client sends mutations whose families are {@link PackedPatch#family} of the packed
 * families and whose values are {@link PackedPatch}es. This observer renames them to the real
 * families before HBase checks them, and merges each patch into the row's packed cell while HBase
 * holds the row's lock for this write alone, so that no other write to the row, whoever sends it,
 * comes between the read and the write:
 *
 * <ul>
 *   <li>a region's rows in one call of HBase's MultiRowMutationEndpoint, as Puts: HBase locks them
 *       all exclusively for the atomic batch, and {@link #preBatchMutate} reads them with one
 *       scanner and replaces each patch by the merged cell. Outside such a call a Put holds its
 *       row's lock shared with other Puts, so a Put of patches is refused there.
 *   <li>a row alone, as an {@link Append} (atomic): HBase reads the row's cells and hands them to
 *       {@link #postAppendBeforeWAL}, which writes each cell merged with its patch in place of the
 *       two concatenated.
 * </ul>
 *
 * A region server without this observer refuses either, as a table has no family of such a name,
 * and changes nothing: the client then falls back, from a region's call to an Append per row, and
 * from those to its own read and conditional write.
 *
 * <p>A patch of a row that has no cell at all (deleted since the statement read it) writes nothing:
 * an UPDATE does not bring a row back. An Append's result is then empty, where the result of an
 * applied one holds one empty cell.
 *
 * <p>It must run before any other observer of the table that reads the written cells ({@link
 * IndexMaintenanceObserver}): tables give it {@link ServerJar#PACKED_MERGE_PRIORITY}.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
public final class PackedMergeObserver implements RegionCoprocessor, RegionObserver {

  /** Marks a mutation whose families this observer renamed, for its later hooks. */
  static final String PATCH_ATTRIBUTE = "spark.hbase.sql.patch";

  private static final byte[] PREFIX = PackedPatch.FAMILY_PREFIX_BYTES;

  /** HBase's endpoint whose calls apply their mutations as one atomic batch. */
  static final String REGION_BATCH_SERVICE = "MultiRowMutationService";

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
    if (renamePatches(append)) GONE.get().clear(); // one call at a time on a thread
    return null;
  }

  /**
   * A Put of patches is merged in {@link #preBatchMutate}, where HBase holds its row's lock; only
   * an exclusive lock keeps another writer out between that read and the write, and HBase takes one
   * for a batch of Puts only when the batch is atomic: in a call of {@link #REGION_BATCH_SERVICE}.
   */
  @Override
  public void prePut(ObserverContext c, Put put, WALEdit edit) throws IOException {
    if (renamePatches(put) && !inRegionBatchCall())
      throw new DoNotRetryIOException(
          PackedPatch.FAMILY_PREFIX
              + " refused: a Put of patches is merged only in one call of HBase's "
              + REGION_BATCH_SERVICE
              + ", which locks its rows for itself alone; send an Append per row otherwise");
  }

  /**
   * Renames the mutation's patch families to the families they patch, keeping each patch as the
   * cell's value, and marks it for the later hooks; returns whether it held patches.
   */
  private boolean renamePatches(Mutation mutation) throws IOException {
    NavigableMap<byte[], List<Cell>> families = mutation.getFamilyCellMap();
    List<byte[]> patched = new ArrayList<>();
    for (byte[] family : families.keySet())
      if (Bytes.startsWith(family, PREFIX)) patched.add(family);
    if (patched.isEmpty()) {
      // Only this observer marks a mutation as a patch: a client's mark would merge plain bytes.
      if (mutation.getAttribute(PATCH_ATTRIBUTE) != null)
        mutation.setAttribute(PATCH_ATTRIBUTE, null);
      return false;
    }
    for (byte[] name : patched) {
      byte[] family = java.util.Arrays.copyOfRange(name, PREFIX.length, name.length);
      for (Cell cell : families.remove(name)) {
        if (cell.getQualifierLength() != 0)
          throw new DoNotRetryIOException("a patch of a packed cell has a qualifier");
        families
            .computeIfAbsent(family, f -> new ArrayList<>())
            .add(
                packedCell(
                        mutation.getRow(), family, cell.getTimestamp(), CellUtil.cloneValue(cell))
                    .build());
      }
    }
    mutation.setAttribute(PATCH_ATTRIBUTE, new byte[] {1});
    return true;
  }

  /** Whether this handler serves a call of {@link #REGION_BATCH_SERVICE}'s atomic batch. */
  private static boolean inRegionBatchCall() {
    Optional<RpcCall> call = RpcServer.getCurrentCall();
    if (!call.isPresent() || !(call.get().getParam() instanceof CoprocessorServiceRequest))
      return false;
    CoprocessorServiceCall service = ((CoprocessorServiceRequest) call.get().getParam()).getCall();
    return service.getServiceName().endsWith(REGION_BATCH_SERVICE)
        && service.getMethodName().equals("MutateRows");
  }

  /**
   * Merges the batch's Puts of patches into their rows' packed cells. Their rows are read with one
   * scanner, in key order, where a Get per row would open a scanner per row: the cost of a merge.
   */
  @Override
  public void preBatchMutate(ObserverContext c, MiniBatchOperationInProgress batch)
      throws IOException {
    List<Integer> patches = new ArrayList<>();
    for (int i = 0; i < batch.size(); i++) {
      Object operation = batch.getOperation(i);
      if (operation instanceof Put && ((Put) operation).getAttribute(PATCH_ATTRIBUTE) != null)
        patches.add(i);
    }
    if (patches.isEmpty()) return;
    patches.sort((a, b) -> Bytes.compareTo(rowOf(batch, a), rowOf(batch, b)));
    for (int p = 1; p < patches.size(); p++)
      if (Bytes.equals(rowOf(batch, patches.get(p - 1)), rowOf(batch, patches.get(p))))
        // Each would merge into the row as it was before both.
        throw new DoNotRetryIOException(
            PackedPatch.FAMILY_PREFIX
                + " refused: two Puts of patches of row "
                + Bytes.toStringBinary(rowOf(batch, patches.get(p)))
                + " in one call");
    Scan scan =
        new Scan()
            .withStartRow(rowOf(batch, patches.get(0)))
            .withStopRow(rowOf(batch, patches.get(patches.size() - 1)), true)
            .readVersions(1);
    try (RegionScanner scanner = env.getRegion().getScanner(scan)) {
      List<Cell> ahead = new ArrayList<>(); // the row the scanner gave last
      boolean more = true;
      for (int index : patches) {
        Put put = (Put) batch.getOperation(index);
        byte[] row = put.getRow();
        if (more && (ahead.isEmpty() || before(ahead, row))) {
          // The next row first: an UPDATE's rows are mostly neighbours, where a reseek would
          // search each of the store's memstore segments and files again for every row.
          ahead.clear();
          more = scanner.next(ahead);
          if (more && before(ahead, row)) {
            ahead.clear();
            scanner.reseek(row);
            more = scanner.next(ahead);
          }
        }
        if (ahead.isEmpty() || !CellUtil.matchingRows(ahead.get(0), row)) {
          // Deleted since the statement read it: an UPDATE does not bring a row back.
          put.getFamilyCellMap().clear();
          batch.setOperationStatus(index, OperationStatus.SUCCESS);
        } else merge(put, ahead);
      }
    }
  }

  /** Whether the row of {@code cells} (some) sorts before {@code row}. */
  private static boolean before(List<Cell> cells, byte[] row) {
    return !cells.isEmpty()
        && CellComparator.getInstance().compareRows(cells.get(0), row, 0, row.length) < 0;
  }

  private static byte[] rowOf(MiniBatchOperationInProgress batch, int index) {
    return ((Mutation) batch.getOperation(index)).getRow();
  }

  /** Replaces each of the Put's patches by its family's packed cell in {@code row} patched. */
  private void merge(Put put, List<Cell> row) throws IOException {
    for (Map.Entry<byte[], List<Cell>> family : put.getFamilyCellMap().entrySet()) {
      Cell old = null;
      for (Cell cell : row)
        if (CellUtil.matchingFamily(cell, family.getKey()) && cell.getQualifierLength() == 0) {
          old = cell;
          break;
        }
      List<Cell> cells = family.getValue();
      for (int i = 0; i < cells.size(); i++) {
        Cell patch = cells.get(i);
        // As HBase's own append: after the cell it replaces, whatever the clocks say.
        long timestamp =
            old == null
                ? patch.getTimestamp()
                : Math.max(patch.getTimestamp(), old.getTimestamp() + 1);
        cells.set(
            i,
            mergedCell(
                put,
                old,
                patch,
                patch.getValueArray(),
                patch.getValueOffset(),
                patch.getValueLength(),
                timestamp));
      }
    }
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
      Cell cell =
          mergedCell(
              mutation,
              old,
              appended,
              appended.getValueArray(),
              appended.getValueOffset() + oldLength,
              appended.getValueLength() - oldLength,
              appended.getTimestamp());
      merged.add(new Pair<>(old, cell));
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

  /**
   * The packed cell {@code old} (none where null) becomes with the patch in {@code patch[offset,
   * offset + length)}, in the family of {@code carrier}, the mutation's cell, and with its tags.
   */
  private Cell mergedCell(
      Mutation mutation,
      Cell old,
      Cell carrier,
      byte[] patch,
      int offset,
      int length,
      long timestamp)
      throws IOException {
    byte[] value;
    try {
      value =
          PackedPatch.applied(
              old == null ? null : old.getValueArray(),
              old == null ? 0 : old.getValueOffset(),
              old == null ? 0 : old.getValueLength(),
              patch,
              offset,
              length);
    } catch (PackedPatch.Malformed e) {
      // Named by the patch family, as a server without the merge refuses it: the client falls back.
      throw new DoNotRetryIOException(PackedPatch.FAMILY_PREFIX + " refused: " + e.getMessage());
    } catch (PackedCell.Malformed e) {
      throw new DoNotRetryIOException(
          "row "
              + Bytes.toStringBinary(mutation.getRow())
              + ": its packed cell in family "
              + Bytes.toString(CellUtil.cloneFamily(carrier))
              + " is malformed: "
              + e.getMessage());
    }
    RawCellBuilder builder =
        packedCell(mutation.getRow(), CellUtil.cloneFamily(carrier), timestamp, value);
    if (carrier instanceof RawCell) {
      List<Tag> tags = new ArrayList<>();
      ((RawCell) carrier).getTags().forEachRemaining(tags::add);
      if (!tags.isEmpty()) builder.setTags(tags);
    }
    return builder.build();
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
