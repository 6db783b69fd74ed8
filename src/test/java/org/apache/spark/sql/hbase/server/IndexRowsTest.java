// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.client.Delete;
import org.apache.hadoop.hbase.client.Increment;
import org.apache.hadoop.hbase.client.Mutation;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Row;
import org.apache.hadoop.hbase.client.RowMutations;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * The index rows a data row may have once a batch is applied, which step 1 of the protocol writes
 * before the data (docs/indexes.md): whatever the batch leaves, the row it leaves is among them.
 * Expected keys are spelled out from the layout: 0x01, the value escaped and terminated, the row.
 */
public class IndexRowsTest {
  private static final byte[] F = Bytes.toBytes("f");
  private static final byte[] E = Bytes.toBytes("e");
  private static final byte[] A = Bytes.toBytes("a");
  private static final byte[] ROW = Bytes.toBytes("r1");
  private static final Map<Mutation, List<Cell>> NONE = new IdentityHashMap<>();

  private static final IndexSpec BY_E =
      new IndexSpec(
          "i",
          new Operand[] {Operand.cell(F, E, CellType.BYTES, 0, 0)},
          new byte[0][],
          new byte[0][]);
  private static final IndexSpec BY_A_E =
      new IndexSpec(
          "j",
          new Operand[] {
            Operand.cell(F, A, CellType.LONG, 0, 0), Operand.cell(F, E, CellType.BYTES, 0, 0)
          },
          new byte[0][],
          new byte[0][]);

  private static Cell cell(byte[] q, long ts, byte[] value) {
    return new KeyValue(ROW, F, q, ts, value);
  }

  private static byte[] text(String s) {
    byte[] v = Bytes.toBytes(s);
    return Bytes.add(new byte[] {1}, v, new byte[] {0, 0});
  }

  private static ByteBuffer key(byte[]... parts) {
    return ByteBuffer.wrap(Bytes.add(Bytes.add(parts), ROW));
  }

  private static Set<ByteBuffer> possible(
      IndexSpec spec, List<Cell> before, List<Mutation> batch, Map<Mutation, List<Cell>> reckoned)
      throws IOException {
    return new HashSet<>(IndexRows.possibleRows(spec, ROW, before, batch, reckoned, "t"));
  }

  @Test
  public void aPutOfANewValueMayLeaveTheOldRowOrTheNewOne() throws IOException {
    List<Cell> before = List.of(cell(E, 5, Bytes.toBytes("old")));
    Put put = new Put(ROW).addColumn(F, E, Bytes.toBytes("new"));
    assertEquals(
        Set.of(key(text("old")), key(text("new"))), possible(BY_E, before, List.of(put), NONE));
  }

  @Test
  public void aDeleteOfTheNewestVersionMayUncoverAnOlderOneOrLeaveNone() throws IOException {
    List<Cell> versions =
        List.of(cell(E, 9, Bytes.toBytes("newest")), cell(E, 4, Bytes.toBytes("older")));
    Delete delete = new Delete(ROW).addColumn(F, E);
    // NULL is all the indexed columns: no index row for it.
    assertEquals(
        Set.of(key(text("newest")), key(text("older"))),
        possible(BY_E, versions, List.of(delete), NONE));
  }

  @Test
  public void aRowDeleteMayLeaveTheOtherColumnAloneInAComposite() throws IOException {
    List<Cell> before = List.of(cell(A, 1, Bytes.toBytes(7L)), cell(E, 1, Bytes.toBytes("x")));
    Delete family = new Delete(ROW).addFamily(F);
    byte[] seven = Bytes.add(new byte[] {1}, Bytes.toBytes(7L ^ Long.MIN_VALUE));
    Set<ByteBuffer> rows = possible(BY_A_E, before, List.of(family), NONE);
    assertEquals(
        Set.of(key(seven, text("x")), key(seven, new byte[] {0}), key(new byte[] {0}, text("x"))),
        rows);
  }

  @Test
  public void anIncrementMayLeaveTheValueHBaseReckonedAndFailsTheWriteWithoutIt()
      throws IOException {
    List<Cell> before = List.of(cell(A, 1, Bytes.toBytes(7L)));
    Increment increment = new Increment(ROW).addColumn(F, A, 5L);
    Map<Mutation, List<Cell>> reckoned = new IdentityHashMap<>();
    reckoned.put(increment, List.of(cell(A, 2, Bytes.toBytes(12L))));
    byte[] twelve = Bytes.add(new byte[] {1}, Bytes.toBytes(12L ^ Long.MIN_VALUE));
    assertTrue(
        possible(BY_A_E, before, List.of(increment), reckoned)
            .contains(key(twelve, new byte[] {0})));
    IOException unseen =
        assertThrows(IOException.class, () -> possible(BY_A_E, before, List.of(increment), NONE));
    assertTrue(unseen.getMessage().contains("the write was not applied"));
  }

  @Test
  public void theRowADataRowHasComesFromItsNewestCellsAndNoneWhenAllAreNull() {
    List<Cell> versions =
        List.of(cell(E, 9, Bytes.toBytes("a\u0000b")), cell(E, 4, Bytes.toBytes("older")));
    byte[] escaped = {1, 'a', 0, (byte) 0xFF, 'b', 0, 0};
    assertEquals(key(escaped), ByteBuffer.wrap(IndexRows.rowOf(BY_E, ROW, versions)));
    assertNull(IndexRows.rowOf(BY_E, ROW, List.of()));
    // A LONG cell of the wrong width is NULL, as Spark reads it.
    assertNull(IndexRows.rowOf(BY_A_E, ROW, List.of(cell(A, 1, Bytes.toBytes("abc")))));
  }

  @Test
  public void anIndexRowIsALonePutUnlessACoveredCellMustGoWithIt() throws IOException {
    IndexSpec covering = new IndexSpec("k", BY_E.indexed, new byte[][] {F}, new byte[][] {A});
    byte[] key = IndexRows.rowOf(covering, ROW, List.of(cell(E, 9, Bytes.toBytes("x"))));
    // Every covered cell present: one put, which HBase batches with the others.
    List<Cell> full = List.of(cell(A, 9, Bytes.toBytes(7L)), cell(E, 9, Bytes.toBytes("x")));
    Row whole = IndexRows.indexRow(covering, key, full, 10);
    assertTrue(whole instanceof Put);
    assertEquals(2, ((Put) whole).size()); // the status and the covered cell
    // The covered cell gone from the data: its delete must land with the put, atomically.
    Row without = IndexRows.indexRow(covering, key, List.of(cell(E, 9, Bytes.toBytes("x"))), 10);
    assertTrue(without instanceof RowMutations);
    List<Mutation> both = ((RowMutations) without).getMutations();
    assertEquals(2, both.size());
    assertTrue(both.get(0) instanceof Put);
    assertTrue(both.get(1) instanceof Delete);
    // Uncovered: the status alone.
    assertTrue(IndexRows.indexRow(BY_E, key, full, 10) instanceof Put);
  }

  @Test
  public void anIndexKeyNamesItsDataRowWhateverTheIndexedTypes() {
    byte[] types = {
      CellType.BOOLEAN,
      CellType.BYTE,
      CellType.SHORT,
      CellType.INT,
      CellType.LONG,
      CellType.FLOAT,
      CellType.DOUBLE,
      CellType.DECIMAL,
      CellType.DECIMAL,
      CellType.BYTES
    };
    int[] precisions = {0, 0, 0, 0, 0, 0, 0, 10, 30, 0};
    int[] widths = {1, 1, 2, 4, 8, 4, 8, 8, 16, -1};
    Operand[] operands = new Operand[types.length];
    byte[][] values = new byte[types.length][];
    for (int i = 0; i < types.length; i++) {
      operands[i] = Operand.cell(F, Bytes.toBytes("c" + i), types[i], precisions[i], 2);
      values[i] =
          widths[i] < 0 ? new byte[] {'a', 0, 'b'} : new byte[widths[i]]; // text with a zero byte
    }
    IndexSpec spec = new IndexSpec("i", operands, new byte[0][], new byte[0][]);
    byte[] dataRow = {0, 0, 1, (byte) 0xFF, 0};
    assertTrue(Bytes.equals(dataRow, spec.dataRowOf(spec.rowKey(values, dataRow))));
    values[0] = null; // a NULL takes its one byte only
    values[9] = null;
    assertTrue(Bytes.equals(dataRow, spec.dataRowOf(spec.rowKey(values, dataRow))));

    assertTrue(Bytes.equals(ROW, BY_E.dataRowOf(Bytes.add(text("x"), ROW))));
    assertNull("no terminator", BY_E.dataRowOf(Bytes.add(new byte[] {1}, Bytes.toBytes("x"))));
    assertNull("neither NULL nor a value", BY_E.dataRowOf(Bytes.toBytes("\u0007r1")));
    assertNull("every column NULL", BY_E.dataRowOf(Bytes.add(new byte[] {0}, ROW)));
    assertNull("cut short", BY_A_E.dataRowOf(new byte[] {1, 0, 0}));
  }
}
