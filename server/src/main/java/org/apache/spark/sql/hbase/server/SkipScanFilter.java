// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.IOException;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.CellUtil;
import org.apache.hadoop.hbase.PrivateCellUtil;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.apache.hadoop.hbase.filter.FilterBase;
import org.apache.hadoop.hbase.filter.KeyOnlyFilter;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The region-server side of a spark-hbase-sql scan, in one filter:
 *
 * <ul>
 *   <li>a skip scan: rows whose key lies outside every key box are never read; the scan seeks to
 *       the next key that may match ({@link KeySkipper});
 *   <li>a row predicate on key dimensions and cells, so only matching rows leave the server. It is
 *       decided as soon as the cells read so far settle it, and the rest of the row is not read;
 *   <li>column selection: the output cells, plus each row's first cell (without its value) so that
 *       a row with none of them still exists.
 * </ul>
 *
 * Its state travels as versioned bytes, in the wire version the client chose (see {@link
 * ServerJar}), never Java serialization. Versions 1 and 2 lay it out alike.
 */
public final class SkipScanFilter extends FilterBase {
  private static final KeyOnlyFilter KEY_ONLY = new KeyOnlyFilter();

  private final KeyLayout layout;
  private final KeyBox[] boxes; // null: every key
  private final Operand[] operands;
  private final RowPredicate predicate; // null: every row
  private final byte[][] outputFamilies; // null: every cell
  private final byte[][] outputQualifiers;
  private final int version;
  // The bytes the filter was read from: sent again as they are, as a plan's filter is made once.
  private byte[] wire;

  // The output cells in the order a row's cells arrive: by family, then qualifier.
  private final byte[][] sortedFamilies;
  private final byte[][] sortedQualifiers;

  private final KeySkipper skipper;
  private final boolean predicateReadsKey;
  private final RowOperands row;

  // State of the current row.
  private byte[] seekTo;
  private boolean done;
  private boolean sawCell;
  private boolean stripValue;
  private int nextOutput; // the first sorted output cell the row has not passed
  private int outcomes; // the values the predicate may still take on the row, as Outcomes

  /**
   * @param boxes sorted disjoint key boxes, or null for no key filtering
   * @param predicate the row predicate over {@code operands}, or null
   * @param outputFamilies families of the output cells (with {@code outputQualifiers}), or null for
   *     all cells
   */
  public SkipScanFilter(
      KeyLayout layout,
      KeyBox[] boxes,
      Operand[] operands,
      RowPredicate predicate,
      byte[][] outputFamilies,
      byte[][] outputQualifiers) {
    this(
        layout,
        boxes,
        operands,
        predicate,
        outputFamilies,
        outputQualifiers,
        ServerJar.WIRE_VERSION);
  }

  /** The filter as it travels in wire version {@code version}. */
  public SkipScanFilter(
      KeyLayout layout,
      KeyBox[] boxes,
      Operand[] operands,
      RowPredicate predicate,
      byte[][] outputFamilies,
      byte[][] outputQualifiers,
      int version) {
    if (predicate != null && predicate.maxOperand() >= operands.length) {
      throw new IllegalArgumentException(
          "the predicate reads operand " + predicate.maxOperand() + " of " + operands.length);
    }
    if ((outputFamilies == null) != (outputQualifiers == null)
        || (outputFamilies != null && outputFamilies.length != outputQualifiers.length)) {
      throw new IllegalArgumentException("output families and qualifiers go in pairs");
    }
    this.row = new RowOperands(layout, operands);
    this.layout = layout;
    this.boxes = boxes;
    this.operands = operands;
    this.predicate = predicate;
    this.outputFamilies = outputFamilies;
    this.outputQualifiers = outputQualifiers;
    this.version = Wire.checked(version);
    int[] order =
        outputFamilies == null
            ? new int[0]
            : ColumnOrder.sort(
                java.util.stream.IntStream.range(0, outputFamilies.length).toArray(),
                i -> outputFamilies[i],
                i -> outputQualifiers[i]);
    this.sortedFamilies = new byte[order.length][];
    this.sortedQualifiers = new byte[order.length][];
    for (int i = 0; i < order.length; i++) {
      sortedFamilies[i] = outputFamilies[order[i]];
      sortedQualifiers[i] = outputQualifiers[order[i]];
    }
    this.skipper = boxes == null ? null : new KeySkipper(layout, boxes);
    this.predicateReadsKey = row.readsKey() && predicate != null;
  }

  @Override
  public boolean filterRowKey(Cell firstRowCell) {
    resetRow();
    if (done) return true;
    if (skipper != null) {
      byte[] row = firstRowCell.getRowArray();
      int offset = firstRowCell.getRowOffset();
      short length = firstRowCell.getRowLength();
      byte[] next = skipper.seekFor(row, offset, length);
      if (next != null) {
        if (next.length == 0) {
          done = true;
          return true;
        }
        // No row key is longer than a short: past the longest key with next's prefix is the same
        // place.
        if (next.length > Short.MAX_VALUE) next = KeyBox.prefixEnd(next, 0, Short.MAX_VALUE);
        if (next == null) {
          done = true;
          return true;
        }
        // A seek key must lie ahead; should one not, skipping just this row is still right.
        if (Bytes.compareTo(next, 0, next.length, row, offset, length) <= 0) return true;
        seekTo = next;
        return false;
      }
    }
    if (predicateReadsKey) {
      row.reset(CellUtil.cloneRow(firstRowCell));
      // Before any cell, only the key operands are known: a row they rule out is never read.
      outcomes = predicate.evalPartial(row);
      return !Outcomes.mayBeTrue(outcomes);
    }
    return false;
  }

  @Override
  public boolean filterAllRemaining() {
    return done;
  }

  @Override
  public ReturnCode filterCell(Cell cell) {
    if (seekTo != null) return ReturnCode.SEEK_NEXT_USING_HINT;
    stripValue = false;
    // The tree is evaluated again only when a cell settles an operand: nothing else changes it.
    if (undecided() && row.capture(cell)) outcomes = predicate.evalPartial(row);
    // A malformed packed cell's values are unknown here: the row goes to Spark, which reports it.
    if (predicate != null && row.malformed()) outcomes = Outcomes.TRUE;
    // A row that cannot match needs no more cells, of this family or of the next ones: HBase asks
    // each family's store for the row in turn. Its cells already included are dropped by filterRow.
    if (!Outcomes.mayBeTrue(outcomes)) return ReturnCode.NEXT_ROW;
    boolean first = !sawCell;
    sawCell = true;
    if (outputFamilies == null || isOutput(cell)) return ReturnCode.INCLUDE;
    if (first) {
      stripValue = true;
      return ReturnCode.INCLUDE;
    }
    // Past the last output cell nothing of the row is needed, unless the predicate is undecided.
    // Otherwise SKIP: cheaper than NEXT_COL's search for the next column, and the same on one
    // version.
    return nextOutput == sortedFamilies.length && outcomes == Outcomes.TRUE
        ? ReturnCode.NEXT_ROW
        : ReturnCode.SKIP;
  }

  /** Whether the row's cells may still change whether it matches. */
  private boolean undecided() {
    return outcomes != Outcomes.TRUE && Outcomes.mayBeTrue(outcomes);
  }

  @Override
  public Cell transformCell(Cell cell) throws IOException {
    if (!stripValue) return cell;
    stripValue = false;
    return KEY_ONLY.transformCell(cell);
  }

  @Override
  public Cell getNextCellHint(Cell currentCell) {
    return PrivateCellUtil.createFirstOnRow(seekTo, 0, (short) seekTo.length);
  }

  @Override
  public boolean hasFilterRow() {
    return predicate != null;
  }

  @Override
  public boolean filterRow() {
    if (predicate == null) return false;
    if (seekTo != null) return true;
    if (row.malformed()) return false; // Spark reads the row, and reports it
    // A decided outcome holds whatever the cells not read held: no need to evaluate again.
    if (!undecided()) return outcomes != Outcomes.TRUE;
    // The operands still pending never came: their cells are missing, NULL.
    return predicate.eval(row) != RowPredicate.TRUE;
  }

  @Override
  public void reset() {
    resetRow();
  }

  private void resetRow() {
    seekTo = null;
    sawCell = false;
    stripValue = false;
    nextOutput = 0;
    outcomes = predicate == null ? Outcomes.TRUE : Outcomes.ANY;
    row.reset(null);
  }

  /**
   * Whether the cell is an output cell; a row's cells arrive sorted, so the search goes on from the
   * last one.
   */
  private boolean isOutput(Cell cell) {
    while (nextOutput < sortedFamilies.length) {
      int order =
          ColumnOrder.compare(sortedFamilies[nextOutput], sortedQualifiers[nextOutput], cell);
      if (order == 0) return true; // older versions of it come next, and stay output
      if (order > 0) return false; // the cell comes before the next output cell
      nextOutput++;
    }
    return false;
  }

  @Override
  public byte[] toByteArray() {
    if (wire != null) return wire;
    return Wire.toBytes(
        version,
        out -> {
          layout.write(out);
          out.writeBoolean(boxes != null);
          if (boxes != null) {
            out.writeInt(boxes.length);
            for (KeyBox b : boxes) b.write(out);
          }
          out.writeInt(operands.length);
          for (Operand o : operands) o.write(out, version);
          out.writeBoolean(predicate != null);
          if (predicate != null) predicate.write(out);
          out.writeBoolean(outputFamilies != null);
          if (outputFamilies != null) {
            out.writeInt(outputFamilies.length);
            for (int i = 0; i < outputFamilies.length; i++) {
              Wire.writeBytes(out, outputFamilies[i]);
              Wire.writeBytes(out, outputQualifiers[i]);
            }
          }
        });
  }

  /** Called by HBase, by reflection, to rebuild the filter in the region server. */
  public static SkipScanFilter parseFrom(byte[] bytes) throws DeserializationException {
    try {
      DataInputStream in = Wire.input(bytes);
      int version = Wire.readVersion(in, "A spark-hbase-sql scan filter");
      KeyLayout layout = KeyLayout.read(in);
      KeyBox[] boxes = null;
      if (in.readBoolean()) {
        int n = in.readInt();
        if (n < 0 || n > in.available())
          throw new IOException("Corrupt filter: " + n + " key boxes");
        boxes = new KeyBox[n];
        for (int i = 0; i < n; i++) boxes[i] = KeyBox.read(in);
      }
      int n = in.readInt();
      if (n < 0 || n > in.available()) throw new IOException("Corrupt filter: " + n + " operands");
      Operand[] operands = new Operand[n];
      for (int i = 0; i < n; i++) operands[i] = Operand.read(in, version);
      RowPredicate predicate = in.readBoolean() ? RowPredicate.read(in, 0) : null;
      byte[][] families = null;
      byte[][] qualifiers = null;
      if (in.readBoolean()) {
        int m = in.readInt();
        if (m < 0 || m > in.available())
          throw new IOException("Corrupt filter: " + m + " output cells");
        families = new byte[m][];
        qualifiers = new byte[m][];
        for (int i = 0; i < m; i++) {
          families[i] = Wire.readBytes(in);
          qualifiers[i] = Wire.readBytes(in);
        }
      }
      if (in.available() > 0)
        throw new IOException("Corrupt filter: " + in.available() + " trailing bytes");
      SkipScanFilter filter =
          new SkipScanFilter(layout, boxes, operands, predicate, families, qualifiers, version);
      filter.wire = bytes;
      return filter;
    } catch (java.io.EOFException e) {
      throw new DeserializationException("Corrupt filter: its bytes end early", e);
    } catch (IOException | IllegalArgumentException e) {
      throw new DeserializationException(e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return "SkipScanFilter("
        + (boxes == null ? "any key" : boxes.length + " key boxes")
        + ", "
        + (predicate == null ? "no predicate" : predicate.toString())
        + ", "
        + (outputFamilies == null ? "all cells" : outputFamilies.length + " output cells")
        + ")";
  }
}
