// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.IOException;
import org.apache.hadoop.hbase.client.Scan;

/**
 * What a region server computes for a scan instead of returning its rows: the rows that pass {@code
 * predicate}, grouped by the values of the {@code groupBy} operands, each group with the {@code
 * aggregates}. It travels as a scan attribute in the wire format of the server jar, in the {@code
 * version} the client chose (see {@link ServerJar}); the region server answers in the same version.
 * See {@link AggregateRegionObserver}.
 *
 * <p>Version 2 added {@code maxBytes}; a spec of version 1 has none (0). Version 3 added {@code
 * keyCheck}: rows whose keys are not keys of the table fail the aggregation, or with {@code
 * skipBadKeys} are left out and counted; a spec of an older version checks no key. Version 4 added
 * operands that read packed cells; a row with a malformed one is a bad row, as a bad key is.
 * Version 6 added {@code overIndex}: the rows are a global index's, each standing for the data row
 * its key ends with (see {@link RowAggregator}).
 */
public final class AggregateSpec {
  /** The scan attribute that carries the spec. */
  public static final String ATTRIBUTE = "spark.hbase.sql.aggregate";

  final KeyLayout layout;
  final Operand[] operands;
  final RowPredicate predicate; // null: every row
  final int[] groupBy;
  final AggregateFunction[] aggregates;

  /** A region holding more groups than this sends them and starts again. */
  final int maxGroups;

  /**
   * The region server reads for at most this long per call before it lets HBase answer: well within
   * the client's scanner and RPC timeouts, so that HBase's heartbeats keep a long aggregation
   * alive.
   */
  final int sliceMillis;

  /**
   * A region whose groups are estimated to hold more bytes than this sends them and starts again,
   * however much of the region server's {@link MemoryBudget} is left; 0 for no cap of the query's
   * own.
   */
  final long maxBytes;

  /** How row keys are checked (see {@link KeyCheck}); null: not at all. */
  final KeyCheck keyCheck;

  /** Whether a row whose key is not a key of the table is left out (and counted), not an error. */
  final boolean skipBadKeys;

  /**
   * The global index whose rows are read, or null for a table's own rows. Over an index, key
   * operands, the predicate and the key check read the data row key that ends each index row's key,
   * and cell operands its covered cells, which carry the data row's family and qualifier. Only the
   * rows the index can vouch for alone are folded in (VERIFIED and well formed); the keys of the
   * others are sent back in the batch, for the client to check against the data table.
   */
  final IndexSpec overIndex;

  /** The wire version the spec travels in, and its batches come back in. */
  final int version;

  /** A spec in the newest wire version, with no byte cap of its own. */
  public AggregateSpec(
      KeyLayout layout,
      Operand[] operands,
      RowPredicate predicate,
      int[] groupBy,
      AggregateFunction[] aggregates,
      int maxGroups,
      int sliceMillis) {
    this(
        layout,
        operands,
        predicate,
        groupBy,
        aggregates,
        maxGroups,
        sliceMillis,
        0,
        ServerJar.WIRE_VERSION);
  }

  /** A spec that checks no row key. */
  public AggregateSpec(
      KeyLayout layout,
      Operand[] operands,
      RowPredicate predicate,
      int[] groupBy,
      AggregateFunction[] aggregates,
      int maxGroups,
      int sliceMillis,
      long maxBytes,
      int version) {
    this(
        layout,
        operands,
        predicate,
        groupBy,
        aggregates,
        maxGroups,
        sliceMillis,
        maxBytes,
        null,
        false,
        version);
  }

  /** A spec over a table's own rows. */
  public AggregateSpec(
      KeyLayout layout,
      Operand[] operands,
      RowPredicate predicate,
      int[] groupBy,
      AggregateFunction[] aggregates,
      int maxGroups,
      int sliceMillis,
      long maxBytes,
      KeyCheck keyCheck,
      boolean skipBadKeys,
      int version) {
    this(
        layout,
        operands,
        predicate,
        groupBy,
        aggregates,
        maxGroups,
        sliceMillis,
        maxBytes,
        keyCheck,
        skipBadKeys,
        null,
        version);
  }

  public AggregateSpec(
      KeyLayout layout,
      Operand[] operands,
      RowPredicate predicate,
      int[] groupBy,
      AggregateFunction[] aggregates,
      int maxGroups,
      int sliceMillis,
      long maxBytes,
      KeyCheck keyCheck,
      boolean skipBadKeys,
      IndexSpec overIndex,
      int version) {
    int max = predicate == null ? -1 : predicate.maxOperand();
    for (int g : groupBy) max = Math.max(max, g);
    for (AggregateFunction a : aggregates) max = Math.max(max, a.maxOperand());
    for (int g : groupBy) {
      if (g < 0) throw new IllegalArgumentException("a group operand number is not negative");
    }
    if (max >= operands.length)
      throw new IllegalArgumentException(
          "the spec reads operand " + max + " of " + operands.length);
    if (maxGroups <= 0) throw new IllegalArgumentException("the group cap must be positive");
    if (sliceMillis <= 0) throw new IllegalArgumentException("the reading slice must be positive");
    if (maxBytes < 0) throw new IllegalArgumentException("the byte cap must not be negative");
    if (maxBytes > 0 && !carriesByteCap(version))
      throw new IllegalArgumentException("wire version " + version + " has no byte cap");
    if (keyCheck != null && !checksKeys(version))
      throw new IllegalArgumentException("wire version " + version + " checks no row key");
    if (keyCheck != null && keyCheck.layout() != layout)
      throw new IllegalArgumentException("a key check cuts keys by the spec's own layout");
    if (overIndex != null && !readsIndexRows(version))
      throw new IllegalArgumentException("wire version " + version + " reads no index rows");
    Wire.checked(version);
    new RowOperands(layout, operands); // checks the operands against the layout
    this.layout = layout;
    this.operands = operands;
    this.predicate = predicate;
    this.groupBy = groupBy;
    this.aggregates = aggregates;
    this.maxGroups = maxGroups;
    this.sliceMillis = sliceMillis;
    this.maxBytes = maxBytes;
    this.keyCheck = keyCheck;
    this.skipBadKeys = keyCheck != null && skipBadKeys;
    this.overIndex = overIndex;
    this.version = version;
  }

  /** This spec over the rows of global index {@code index} instead of the table's own. */
  public AggregateSpec overIndexRows(IndexSpec index) {
    return new AggregateSpec(
        layout,
        operands,
        predicate,
        groupBy,
        aggregates,
        maxGroups,
        sliceMillis,
        maxBytes,
        keyCheck,
        skipBadKeys,
        index,
        version);
  }

  /** Whether a spec of wire version {@code version} carries a byte cap. */
  public static boolean carriesByteCap(int version) {
    return version >= 2;
  }

  /** Whether a spec of wire version {@code version} can check row keys. */
  public static boolean checksKeys(int version) {
    return version >= 3;
  }

  /** Whether a spec of wire version {@code version} can read a global index's rows. */
  public static boolean readsIndexRows(int version) {
    return version >= 6;
  }

  /** Whether the rows read are a global index's ({@link #overIndex}). */
  public boolean isOverIndex() {
    return overIndex != null;
  }

  public byte[] toByteArray() {
    return Wire.toBytes(
        version,
        out -> {
          layout.write(out);
          out.writeInt(operands.length);
          for (Operand o : operands) o.write(out, version);
          out.writeBoolean(predicate != null);
          if (predicate != null) predicate.write(out);
          out.writeInt(groupBy.length);
          for (int g : groupBy) out.writeInt(g);
          out.writeInt(aggregates.length);
          for (AggregateFunction a : aggregates) a.write(out);
          out.writeInt(maxGroups);
          out.writeInt(sliceMillis);
          if (carriesByteCap(version)) out.writeLong(maxBytes);
          if (checksKeys(version)) {
            out.writeBoolean(keyCheck != null);
            if (keyCheck != null) {
              keyCheck.write(out);
              out.writeBoolean(skipBadKeys);
            }
          }
          if (readsIndexRows(version)) {
            out.writeBoolean(overIndex != null);
            if (overIndex != null) overIndex.write(out, version);
          }
        });
  }

  /** Asks the region servers of {@code scan} to aggregate its rows. */
  public void attachTo(Scan scan) {
    scan.setAttribute(ATTRIBUTE, toByteArray());
  }

  public static AggregateSpec parseFrom(byte[] bytes) throws IOException {
    return Wire.parse(bytes, "aggregation", AggregateSpec::read);
  }

  private static AggregateSpec read(DataInputStream in) throws IOException {
    int version = Wire.readVersion(in, "A spark-hbase-sql aggregation");
    KeyLayout layout = KeyLayout.read(in);
    int n = in.readInt();
    if (n < 0 || n > in.available())
      throw new IOException("Corrupt aggregation: " + n + " operands");
    Operand[] operands = new Operand[n];
    for (int i = 0; i < n; i++) operands[i] = Operand.read(in, version);
    RowPredicate predicate = in.readBoolean() ? RowPredicate.read(in, 0) : null;
    int g = in.readInt();
    if (g < 0 || g > in.available())
      throw new IOException("Corrupt aggregation: " + g + " group operands");
    int[] groupBy = new int[g];
    for (int i = 0; i < g; i++) groupBy[i] = in.readInt();
    int a = in.readInt();
    if (a < 0 || a > in.available())
      throw new IOException("Corrupt aggregation: " + a + " aggregates");
    AggregateFunction[] aggregates = new AggregateFunction[a];
    for (int i = 0; i < a; i++) aggregates[i] = AggregateFunction.read(in);
    int maxGroups = in.readInt();
    int sliceMillis = in.readInt();
    long maxBytes = carriesByteCap(version) ? in.readLong() : 0;
    KeyCheck keyCheck = null;
    boolean skipBadKeys = false;
    if (checksKeys(version) && in.readBoolean()) {
      keyCheck = KeyCheck.read(in, layout);
      skipBadKeys = in.readBoolean();
    }
    IndexSpec overIndex =
        readsIndexRows(version) && in.readBoolean() ? IndexSpec.read(in, version) : null;
    if (in.available() > 0)
      throw new IOException("Corrupt aggregation: " + in.available() + " trailing bytes");
    return new AggregateSpec(
        layout,
        operands,
        predicate,
        groupBy,
        aggregates,
        maxGroups,
        sliceMillis,
        maxBytes,
        keyCheck,
        skipBadKeys,
        overIndex,
        version);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("aggregate(");
    for (int i = 0; i < aggregates.length; i++) sb.append(i == 0 ? "" : ", ").append(aggregates[i]);
    sb.append(") group by ").append(groupBy.length).append(" operand(s)");
    if (predicate != null) sb.append(" where ").append(predicate);
    if (maxBytes > 0) sb.append(", at most ").append(maxBytes).append(" bytes of groups");
    if (keyCheck != null)
      sb.append(skipBadKeys ? ", skipping" : ", failing on").append(" bad keys");
    if (overIndex != null) sb.append(", over the rows of ").append(overIndex);
    return sb.append(')').toString();
  }
}
