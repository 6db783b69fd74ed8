// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Append;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptor;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Durability;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.MultiRowRangeFilter;
import org.apache.hadoop.hbase.regionserver.MiniBatchOperationInProgress;
import org.apache.hadoop.hbase.regionserver.OperationStatus;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.Pair;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a data table's global indexes ({@link IndexSpec}) exact for every writer: each batch of
 * puts, deletes (of every kind), increments, appends and check-and-mutates that reaches a region,
 * whoever sent it, changes the index rows in three steps.
 *
 * <ol>
 *   <li>Before the data is written, under the rows' index locks ({@link IndexRowLocks}): every
 *       index row the data row may have once the batch is applied (its current row, and one for
 *       each value the batch or an older version could leave) is written UNVERIFIED. If that fails,
 *       the batch fails and no data is written.
 *   <li>HBase writes the data.
 *   <li>After, still under the index locks, whether the data write succeeded or not: the data row
 *       as it now is gives the one index row that is right; it is written VERIFIED with its covered
 *       cells, and every other row of step 1 is deleted.
 * </ol>
 *
 * So an index row exists before the data that needs it can be read, and a VERIFIED row always
 * matches its data row. A reader trusts VERIFIED rows and checks UNVERIFIED ones against the data
 * row: those are the rows of a write in progress, or of a write whose last step did not run (a
 * region server that died, an index region that was away), and the check tells which are right.
 */
// Raw parameter types: HBase 3 declares these hooks with other generic bounds than HBase 2.
@SuppressWarnings({"rawtypes", "unchecked"})
public final class IndexMaintenanceObserver implements RegionCoprocessor, RegionObserver {
  /** How long a write waits for another write to the same rows to finish its index maintenance. */
  public static final String LOCK_WAIT_PROPERTY = "spark.hbase.sql.index.lockWaitMillis";

  /**
   * How long a write of index rows may take, retries included, before the data write it precedes
   * fails; below the client's own timeout, so that the client sees why.
   */
  public static final String WRITE_TIMEOUT_PROPERTY = "spark.hbase.sql.index.writeTimeoutMillis";

  /**
   * How long after a write's index timestamp its last step may still change index rows. The step
   * begins only in the first half of it and must be done by its end, or leaves the rows UNVERIFIED:
   * a read through an index counts on every index row written during the read carrying a timestamp
   * no older than this (plus the clocks' skew) before the read began (docs/indexes.md).
   */
  public static final long LAST_STEP_DEADLINE_MILLIS = 60_000L;

  /**
   * The attribute of a request to verify a data row's index rows and change nothing else (see
   * {@link #verifyRequest}), as CHECK INDEX ... REPAIR sends one.
   */
  public static final String VERIFY_ATTRIBUTE = "spark.hbase.sql.index.verify";

  /**
   * The qualifier a verify request names; a region server without this observer deletes its version
   * 0.
   */
  public static final byte[] VERIFY_QUALIFIER =
      org.apache.hadoop.hbase.util.Bytes.toBytes("\u0000verify");

  /**
   * A request that this observer treat {@code row} as written: under the row's index locks it
   * writes the index rows the row's present state gives, VERIFIED, and HBase applies nothing to the
   * row. A region server without the observer would apply it: a delete of version 0 of a qualifier
   * nothing maps, in {@code family}, which must be one of the table's.
   */
  public static Delete verifyRequest(byte[] row, byte[] family) {
    Delete delete = new Delete(row).addColumn(family, VERIFY_QUALIFIER, 0L);
    delete.setAttribute(VERIFY_ATTRIBUTE, new byte[] {1});
    return delete;
  }

  private static final Logger LOG = LoggerFactory.getLogger(IndexMaintenanceObserver.class);
  private static final int STRIPES = 1024;
  private static final int SENDER_THREADS = 32;
  private static final ExecutorService SENDERS = senders();

  /** An increment's or append's resulting cells, from the hook that sees them, by mutation. */
  private static final ThreadLocal<IdentityHashMap<Mutation, List<Cell>>> RECKONED =
      ThreadLocal.withInitial(IdentityHashMap::new);

  /** What a batch's first step left for its last one, by batch. */
  private static final ThreadLocal<IdentityHashMap<Object, Pending>> PENDING =
      ThreadLocal.withInitial(IdentityHashMap::new);

  private RegionCoprocessorEnvironment env;
  private List<IndexSpec> specs;
  // The columns (family, qualifier) and the families the indexes read, and whether any indexed
  // column is packed.
  private List<byte[][]> columnsRead;
  private List<byte[]> familiesRead;
  private boolean packedColumns;
  private IndexRowLocks locks;
  private String tableName;
  private int writeTimeoutMillis;

  /** Set once the region begins to close; from then on no write starts its index maintenance. */
  private volatile boolean closing;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  @Override
  public void start(CoprocessorEnvironment environment) throws IOException {
    CoprocessorSettings settings = new CoprocessorSettings(this, environment);
    env = settings.environment();
    tableName = env.getRegionInfo().getTable().getNameAsString();
    specs = IndexSpec.fromProperty(settings.required(IndexSpec.PROPERTY));
    columnsRead = IndexSpec.columnsRead(specs);
    familiesRead = IndexSpec.familiesOf(columnsRead);
    packedColumns = IndexSpec.readsPackedCells(specs);
    locks = new IndexRowLocks(STRIPES, settings.positive(LOCK_WAIT_PROPERTY, 30_000L));
    writeTimeoutMillis =
        (int) Math.min(Integer.MAX_VALUE, settings.positive(WRITE_TIMEOUT_PROPERTY, 20_000L));
  }

  /**
   * A closing region reads nothing: once HBase marks it closing, the last step of a batch still in
   * it could not read the data row and would leave every row of its first step UNVERIFIED. So
   * before HBase marks it, the writes in progress finish their last step, and writes that come
   * after fail as HBase would fail them a moment later (the client retries them where the region
   * opens next).
   */
  @Override
  public void preClose(ObserverContext c, boolean abortRequested) {
    closing = true;
    if (abortRequested) return;
    long started = System.currentTimeMillis();
    if (!locks.awaitIdle(LAST_STEP_DEADLINE_MILLIS)) {
      LOG.warn(
          "Closing a region of {} while a write's index maintenance was still in progress after"
              + " {} ms; its index rows may be left unverified",
          tableName,
          System.currentTimeMillis() - started);
    }
  }

  @Override
  public List postIncrementBeforeWAL(ObserverContext c, Mutation mutation, List cellPairs) {
    return reckoned(mutation, cellPairs);
  }

  @Override
  public List postAppendBeforeWAL(ObserverContext c, Mutation mutation, List cellPairs) {
    return reckoned(mutation, cellPairs);
  }

  private static List<Pair<Cell, Cell>> reckoned(
      Mutation mutation, List<Pair<Cell, Cell>> cellPairs) {
    List<Cell> cells = new ArrayList<>(cellPairs.size());
    for (Pair<Cell, Cell> pair : cellPairs) cells.add(pair.getSecond());
    RECKONED.get().put(mutation, cells);
    return cellPairs;
  }

  /** One data row's share of a batch. */
  private static final class RowWork {
    final byte[] row;
    final List<Mutation> mutations = new ArrayList<>();
    boolean deletes;
    // The batch's index of its one mutation, where it has one.
    int batchIndex = -1;
    // Whether the region held no cell of the indexes' families for the row before the batch: no
    // value, no delete marker. A lone put then leaves it exactly the put's cells.
    boolean fresh;
    // Per index: the index rows written UNVERIFIED before the data.
    final List<Set<ByteBuffer>> candidates = new ArrayList<>();

    RowWork(byte[] row) {
      this.row = row;
    }
  }

  private static final class Pending {
    final IndexRowLocks.Held held;
    final List<RowWork> rows;

    Pending(IndexRowLocks.Held held, List<RowWork> rows) {
      this.held = held;
      this.rows = rows;
    }
  }

  @Override
  public void preBatchMutate(ObserverContext c, MiniBatchOperationInProgress batch)
      throws IOException {
    IdentityHashMap<Mutation, List<Cell>> reckoned = RECKONED.get();
    try {
      Map<ByteBuffer, RowWork> rows = new LinkedHashMap<>();
      for (int i = 0; i < batch.size(); i++) {
        Mutation m = (Mutation) batch.getOperation(i);
        if (m == null) continue;
        boolean verify = m.getAttribute(VERIFY_ATTRIBUTE) != null;
        if (!verify && !touchesIndex(m)) continue;
        RowWork work =
            rows.computeIfAbsent(ByteBuffer.wrap(m.getRow()), k -> new RowWork(m.getRow()));
        if (verify) {
          // Done here: HBase applies no operation whose status is already set.
          batch.setOperationStatus(i, OperationStatus.SUCCESS);
        } else {
          work.mutations.add(m);
          work.deletes |= m instanceof Delete;
          work.batchIndex = i;
        }
      }
      if (rows.isEmpty()) return;
      List<byte[]> keys = new ArrayList<>();
      for (RowWork w : rows.values()) keys.add(w.row);
      String what = "writing the indexes of " + tableName;
      IndexRowLocks.Held held = locks.lock(keys, what);
      boolean written = false;
      try {
        // Checked under the locks, which preClose waits for: a batch either finishes before the
        // region is marked closing, or does not begin.
        if (closing) {
          throw new NotServingRegionException(
              env.getRegionInfo().getRegionNameAsString() + " is closing");
        }
        List<RowWork> work = new ArrayList<>(rows.values());
        Map<String, List<Row>> writes = new LinkedHashMap<>();
        List<RowWork> emptyBefore = new ArrayList<>();
        boolean expiring = familiesExpire();
        read(
            work,
            true,
            (w, before) -> {
              if (before.isEmpty() && !expiring && isLonePut(w)) emptyBefore.add(w);
              for (IndexSpec spec : specs) {
                Set<ByteBuffer> candidates =
                    IndexRows.possibleRows(spec, w.row, before, w.mutations, reckoned, tableName);
                w.candidates.add(candidates);
                for (ByteBuffer key : candidates) {
                  writes
                      .computeIfAbsent(spec.indexTable, t -> new ArrayList<>())
                      .add(IndexRows.statusPut(key.array(), IndexSpec.UNVERIFIED, held.timestamp));
                }
              }
            });
        markFresh(emptyBefore);
        Map<String, IOException> failed =
            sendAll(
                writes, what + " before its data (the write was not applied)", writeTimeoutMillis);
        if (!failed.isEmpty()) {
          undo(work, held.timestamp, writes.keySet(), failed.keySet());
          throw first(failed);
        }
        PENDING.get().put(batch, new Pending(held, work));
        written = true;
      } finally {
        if (!written) held.release();
      }
    } finally {
      reckoned.clear(); // each was seen just before this batch, on this thread
    }
  }

  @Override
  public void postBatchMutateIndispensably(
      ObserverContext c, MiniBatchOperationInProgress batch, boolean success) throws IOException {
    Pending pending = PENDING.get().remove(batch);
    if (pending == null) return;
    try {
      sendInTime(
          verifying(pending.rows, pending.held.timestamp, null, batch),
          pending.held.timestamp,
          "verifying the indexes of " + tableName);
    } catch (IOException | RuntimeException e) {
      // The rows stay UNVERIFIED: readers check them against the data, CHECK INDEX repairs them.
      LOG.warn("Index rows of a write to {} are left unverified: {}", tableName, e.toString());
    } finally {
      pending.held.release();
    }
  }

  /**
   * The last step's writes for rows whose data is as it is now: VERIFIED where the data puts its
   * index row (UNVERIFIED where a cell of it has a TTL of its own), a delete of every other row the
   * first step marked. Only for the index tables in {@code tables}, or all when null. A fresh row
   * whose put {@code applied} (the batch, after the data write) holds is its put's cells, which are
   * not read again; every other row is read.
   */
  private Map<String, List<Row>> verifying(
      List<RowWork> rows, long ts, Set<String> tables, MiniBatchOperationInProgress<?> applied)
      throws IOException {
    Map<String, List<Row>> writes = new LinkedHashMap<>();
    RowCells each =
        (w, now) -> {
          for (int s = 0; s < specs.size(); s++) {
            IndexSpec spec = specs.get(s);
            if (tables != null && !tables.contains(spec.indexTable)) continue;
            List<Row> out = writes.computeIfAbsent(spec.indexTable, t -> new ArrayList<>());
            byte[] right = IndexRows.rowOf(spec, w.row, now);
            if (right != null) out.add(lastStep(IndexRows.indexRow(spec, right, now, ts)));
            for (ByteBuffer key : w.candidates.get(s)) {
              if (right == null || !ByteBuffer.wrap(right).equals(key))
                out.add(lastStep(new Delete(key.array(), ts)));
            }
          }
        };
    List<RowWork> toRead = new ArrayList<>(rows.size());
    for (RowWork w : rows) {
      List<Cell> put = applied == null ? null : putCells(w, applied);
      if (put != null) each.accept(w, put);
      else toRead.add(w);
    }
    if (!toRead.isEmpty()) read(toRead, false, each);
    return writes;
  }

  /**
   * Whether the row's one mutation of the batch is a put that HBase stores as it is sent: no TTL of
   * its own, no ACL or visibility labels, and columns the region server stores cell for cell (an
   * index of packed columns reads cells that another observer may merge).
   */
  private boolean isLonePut(RowWork w) {
    if (w.mutations.size() != 1 || !(w.mutations.get(0) instanceof Put) || packedColumns)
      return false;
    Mutation put = w.mutations.get(0);
    try {
      return put.getTTL() == Long.MAX_VALUE
          && put.getACL() == null
          && put.getCellVisibility() == null;
    } catch (DeserializationException e) {
      return false;
    }
  }

  /**
   * Whether a family the indexes read has a TTL: a put's cell older than it is not there to read
   * once written.
   */
  private boolean familiesExpire() {
    TableDescriptor table = env.getRegion().getTableDescriptor();
    for (byte[] family : familiesRead) {
      ColumnFamilyDescriptor descriptor = table.getColumnFamily(family);
      if (descriptor == null || descriptor.getTimeToLive() != HConstants.FOREVER) return true;
    }
    return false;
  }

  /**
   * Marks {@code rows} fresh where the region holds no cell of the indexes' families for them, not
   * even a delete marker: a raw read of those families, which shows every cell and marker.
   */
  private void markFresh(List<RowWork> rows) throws IOException {
    if (rows.isEmpty()) return;
    Scan scan = new Scan().setRaw(true);
    for (byte[] family : familiesRead) scan.addFamily(family);
    for (RowWork w : scanRows(rows, scan, (w, cells) -> {})) w.fresh = true;
  }

  /**
   * The cells of the columns the indexes read that a fresh row has after the batch {@code applied}
   * wrote it: its put's, where HBase applied the put, it holds at most one cell a column and they
   * are all puts (a put may carry delete markers); else null, and the row is read.
   */
  private List<Cell> putCells(RowWork w, MiniBatchOperationInProgress<?> applied) {
    if (!w.fresh
        || applied.getOperationStatus(w.batchIndex).getOperationStatusCode()
            != HConstants.OperationStatusCode.SUCCESS) return null;
    List<Cell> cells = new ArrayList<>(columnsRead.size());
    for (Map.Entry<byte[], List<Cell>> family : w.mutations.get(0).getFamilyCellMap().entrySet()) {
      boolean read = false;
      for (byte[] f : familiesRead) read |= Bytes.equals(f, family.getKey());
      if (!read) continue;
      for (Cell cell : family.getValue()) if (cell.getType() != Cell.Type.Put) return null;
      for (byte[][] column : columnsRead) {
        if (!Bytes.equals(column[0], family.getKey())) continue;
        Cell found = null;
        for (Cell cell : family.getValue()) {
          if (!CellUtil.matchingQualifier(cell, column[1])) continue;
          if (found != null) return null;
          found = cell;
        }
        if (found != null) cells.add(found);
      }
    }
    return cells;
  }

  /**
   * After a first step that failed on some index tables, the rows it marked in the others are put
   * back as the unchanged data gives them, still under the rows' locks: a failed write leaves no
   * index row behind where it can help it. Best effort; what it leaves is UNVERIFIED, which readers
   * check.
   */
  private void undo(List<RowWork> rows, long ts, Set<String> marked, Set<String> failed) {
    Set<String> written = new HashSet<>(marked);
    written.removeAll(failed);
    if (written.isEmpty()) return;
    try {
      sendInTime(
          verifying(rows, ts, written, null),
          ts,
          "undoing the index rows of a failed write to " + tableName);
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "Index rows of a failed write to {} are left unverified: {}", tableName, e.toString());
    }
  }

  /**
   * A write of the last step, which need not be durable: lost in a crash, it leaves the rows as the
   * first step wrote them, durably and at the same timestamp (UNVERIFIED, which readers check), and
   * a WAL loses only its newest edits, so no later write's index rows are left on top of it. Not
   * waiting for the WAL here saves one sync per batch and index.
   */
  private static Row lastStep(Row write) {
    if (write instanceof RowMutations) {
      for (Mutation m : ((RowMutations) write).getMutations())
        m.setDurability(Durability.ASYNC_WAL);
      return write;
    }
    return ((Mutation) write).setDurability(Durability.ASYNC_WAL);
  }

  /**
   * A bulk load bypasses every write hook: unless its files say it loaded these indexes' rows too
   * ({@link IndexTrust}), the region's range is marked untrusted in every index before the files
   * land, so that no query trusts the index there. Marked again, as a newer version, once they have
   * landed: a CHECK INDEX clears only the versions up to the newest it saw before it read the data,
   * and one that read the region before the files landed has not seen this one.
   */
  @Override
  public void preBulkLoadHFile(ObserverContext c, List familyPaths) throws IOException {
    markUnlessMaintained(familyPaths);
  }

  @Override
  public void postBulkLoadHFile(ObserverContext c, List stagingFamilyPaths, Map finalPaths)
      throws IOException {
    markUnlessMaintained(stagingFamilyPaths);
  }

  private void markUnlessMaintained(List<?> familyPaths) throws IOException {
    String tag = IndexTrust.fileTag(specs);
    boolean marks = false;
    for (Object item : familyPaths) {
      Pair<?, ?> familyPath = (Pair<?, ?>) item;
      byte[] family = (byte[]) familyPath.getFirst();
      boolean read = false;
      for (IndexSpec spec : specs) read |= spec.readsFamily(family);
      if (read && !IndexTrust.maintains(String.valueOf(familyPath.getSecond()), tag)) marks = true;
    }
    if (!marks) return;
    RegionInfo region = env.getRegionInfo();
    Map<String, List<Row>> writes = new LinkedHashMap<>();
    for (IndexSpec spec : specs) {
      long ts = newerMarkVersion(spec.indexTable, region.getStartKey());
      writes
          .computeIfAbsent(spec.indexTable, t -> new ArrayList<>())
          .add(IndexTrust.untrusted(region.getStartKey(), region.getEndKey(), ts));
    }
    send(
        writes,
        "marking where a bulk load into " + tableName + " leaves its indexes behind",
        writeTimeoutMillis);
  }

  /**
   * A version of the region's mark newer than any it has, whatever this server's clock says beside
   * the one that marked before: a check clears the versions it saw and all older ones.
   */
  private long newerMarkVersion(String indexTable, byte[] regionStart) throws IOException {
    try (Table index = env.getConnection().getTable(TableName.valueOf(indexTable))) {
      Cell newest =
          index
              .get(new Get(IndexTrust.ROW).addColumn(IndexSpec.STATUS_FAMILY, regionStart))
              .getColumnLatestCell(IndexSpec.STATUS_FAMILY, regionStart);
      long now = System.currentTimeMillis();
      return newest == null ? now : Math.max(now, newest.getTimestamp() + 1);
    }
  }

  private boolean touchesIndex(Mutation m) {
    if (!(m instanceof Put || m instanceof Delete || m instanceof Increment || m instanceof Append))
      return false;
    if (m instanceof Delete && m.getFamilyCellMap().isEmpty()) return true; // the whole row
    for (byte[] family : m.getFamilyCellMap().keySet()) {
      for (IndexSpec spec : specs) if (spec.readsFamily(family)) return true;
    }
    return false;
  }

  /** What is done with a data row's cells, which are valid only until it returns. */
  private interface RowCells {
    void accept(RowWork row, List<Cell> cells) throws IOException;
  }

  /**
   * Hands {@code each} the cells the indexes read of every one of {@code rows} (newest version
   * first; none for a row without them): every version of them for a row with a delete when {@code
   * allVersionsWhereDeleted}, else the newest. One region scanner seeks from row to row, where a
   * Get for each row opened a scanner of its own: opening it was half of a Get's cost. The cells
   * are handed over while the scanner is open, since they may lie in memory it holds (a memstore
   * chunk, a cached block) that is reused once it closes.
   */
  private void read(List<RowWork> rows, boolean allVersionsWhereDeleted, RowCells each)
      throws IOException {
    boolean allVersions = false;
    for (RowWork w : rows) allVersions |= allVersionsWhereDeleted && w.deletes;
    Scan scan = new Scan();
    for (IndexSpec spec : specs) spec.addCellsRead(scan);
    if (allVersions) scan.readAllVersions();
    boolean newestOfSome = allVersions;
    Collection<RowWork> unread =
        scanRows(
            rows,
            scan,
            (w, cells) -> each.accept(w, newestOfSome && !w.deletes ? newestOnly(cells) : cells));
    for (RowWork w : unread) each.accept(w, new ArrayList<>());
  }

  /**
   * Hands {@code found} each of {@code rows} that {@code scan} finds cells of, with them, through
   * one region scanner over the rows' keys; returns the rows it found nothing of.
   */
  private Collection<RowWork> scanRows(List<RowWork> rows, Scan scan, RowCells found)
      throws IOException {
    Map<ByteBuffer, RowWork> unseen = new HashMap<>();
    List<MultiRowRangeFilter.RowRange> ranges = new ArrayList<>(rows.size());
    byte[] first = null;
    byte[] last = null;
    for (RowWork w : rows) {
      unseen.put(ByteBuffer.wrap(w.row), w);
      ranges.add(new MultiRowRangeFilter.RowRange(w.row, true, w.row, true));
      if (first == null || Bytes.compareTo(w.row, first) < 0) first = w.row;
      if (last == null || Bytes.compareTo(w.row, last) > 0) last = w.row;
    }
    scan.withStartRow(first).withStopRow(last, true).setFilter(new MultiRowRangeFilter(ranges));
    try (RegionScanner scanner = env.getRegion().getScanner(scan)) {
      List<Cell> cells = new ArrayList<>();
      boolean more;
      do {
        more = scanner.next(cells);
        if (!cells.isEmpty()) {
          RowWork w = unseen.remove(ByteBuffer.wrap(CellUtil.cloneRow(cells.get(0))));
          if (w != null) found.accept(w, cells);
          cells.clear();
        }
      } while (more);
    }
    return unseen.values();
  }

  /** The newest version of each column of {@code cells}, which are in a scan's order. */
  private static List<Cell> newestOnly(List<Cell> cells) {
    List<Cell> newest = new ArrayList<>();
    for (Cell cell : cells) {
      if (newest.isEmpty() || !CellUtil.matchingColumn(newest.get(newest.size() - 1), cell))
        newest.add(cell);
    }
    return newest;
  }

  /**
   * Each index table's writes, the tables at once: a write with several indexes waits for the
   * slowest of them rather than for their sum. Every table is sent to even when one fails; the
   * failures are returned by index table.
   */
  private Map<String, IOException> sendAll(
      Map<String, List<Row>> writes, String what, int timeoutMillis) throws IOException {
    List<Map.Entry<String, List<Row>>> tables = new ArrayList<>();
    for (Map.Entry<String, List<Row>> e : writes.entrySet())
      if (!e.getValue().isEmpty()) tables.add(e);
    Map<String, Future<?>> others = new LinkedHashMap<>();
    for (Map.Entry<String, List<Row>> e :
        tables.subList(Math.min(1, tables.size()), tables.size())) {
      others.put(
          e.getKey(), SENDERS.submit(() -> sendTo(e.getKey(), e.getValue(), what, timeoutMillis)));
    }
    Map<String, IOException> failed = new LinkedHashMap<>();
    if (!tables.isEmpty()) {
      try {
        sendTo(tables.get(0).getKey(), tables.get(0).getValue(), what, timeoutMillis);
      } catch (IOException e) {
        failed.put(tables.get(0).getKey(), e);
      }
    }
    for (Map.Entry<String, Future<?>> other : others.entrySet()) {
      try {
        other.getValue().get();
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException(what + ": interrupted");
      } catch (ExecutionException ee) {
        failed.put(
            other.getKey(),
            ee.getCause() instanceof IOException
                ? (IOException) ee.getCause()
                : new IOException(what + ": " + ee.getCause(), ee.getCause()));
      }
    }
    return failed;
  }

  /**
   * The last step's {@link #sendAll}, failing with the first failure, which carries the others: it
   * begins only in the first half of {@link #LAST_STEP_DEADLINE_MILLIS} after the write's index
   * timestamp {@code ts}, and must be done by its end.
   */
  private void sendInTime(Map<String, List<Row>> writes, long ts, String what) throws IOException {
    long left = ts + LAST_STEP_DEADLINE_MILLIS - System.currentTimeMillis();
    if (left < LAST_STEP_DEADLINE_MILLIS / 2) {
      throw new IOException(
          what
              + ": the last step would begin "
              + (LAST_STEP_DEADLINE_MILLIS - left)
              + " ms after the write's index timestamp, too late for readers to see it as new");
    }
    send(writes, what, (int) Math.min(writeTimeoutMillis, left));
  }

  /** {@link #sendAll}, failing with the first failure, which carries the others. */
  private void send(Map<String, List<Row>> writes, String what, int timeoutMillis)
      throws IOException {
    Map<String, IOException> failed = sendAll(writes, what, timeoutMillis);
    if (!failed.isEmpty()) throw first(failed);
  }

  private static IOException first(Map<String, IOException> failed) {
    Iterator<IOException> each = failed.values().iterator();
    IOException first = each.next();
    while (each.hasNext()) first.addSuppressed(each.next());
    return first;
  }

  private Void sendTo(String indexTable, List<Row> rows, String what, int timeoutMillis)
      throws IOException {
    try (Table index =
        env.getConnection()
            .getTableBuilder(TableName.valueOf(indexTable), null)
            .setOperationTimeout(timeoutMillis)
            .setRpcTimeout(timeoutMillis)
            .build()) {
      index.batch(rows, new Object[rows.size()]);
      return null;
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException(what + ": interrupted");
    } catch (IOException ioe) {
      throw new IOException(what + ": index table " + indexTable + ": " + ioe.getMessage(), ioe);
    }
  }

  /** Threads sending the writes of a batch's second and later index tables; idle ones end. */
  private static ExecutorService senders() {
    ThreadPoolExecutor pool =
        new ThreadPoolExecutor(
            SENDER_THREADS,
            SENDER_THREADS,
            60,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            task -> {
              Thread thread = new Thread(task, "spark-hbase-sql-index-writes");
              thread.setDaemon(true);
              return thread;
            });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }
}
