// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.hadoop.hbase.exceptions.DeserializationException;
import org.junit.Test;

/** The server jar's messages alone: what a client writes, a region server reads as it was meant. */
public class WireMessagesTest {
  private static final KeyLayout LAYOUT =
      new KeyLayout(new byte[] {KeyLayout.FIXED, KeyLayout.REST}, new int[] {4, 0}, new byte[0]);

  private static SkipScanFilter filter(int version) {
    return new SkipScanFilter(
        LAYOUT, null, new Operand[0], null, new byte[][] {{'f'}}, new byte[][] {{'v'}}, version);
  }

  private static AggregateSpec count(long maxBytes, int version) {
    return new AggregateSpec(
        LAYOUT,
        new Operand[0],
        null,
        new int[0],
        new AggregateFunction[] {AggregateFunction.countRows()},
        100,
        250,
        maxBytes,
        version);
  }

  @Test
  public void aFilterIsReadBackInEveryVersionTheJarReadsAndSendsTheBytesItWasReadFrom()
      throws Exception {
    for (int v = ServerJar.OLDEST_WIRE_VERSION; v <= ServerJar.WIRE_VERSION; v++) {
      byte[] bytes = filter(v).toByteArray();
      assertEquals(v, ByteBuffer.wrap(bytes).getInt()); // the version leads
      SkipScanFilter read = SkipScanFilter.parseFrom(bytes);
      assertSame(bytes, read.toByteArray());
      assertArrayEquals(bytes, filter(v).toByteArray());
    }
  }

  @Test
  public void aFilterOfAVersionTheJarDoesNotReadIsRefusedAsSuch() {
    byte[] newer = filter(ServerJar.WIRE_VERSION).toByteArray();
    ByteBuffer.wrap(newer).putInt(ServerJar.WIRE_VERSION + 1);
    DeserializationException e =
        assertThrows(DeserializationException.class, () -> SkipScanFilter.parseFrom(newer));
    assertTrue(e.getCause() instanceof WireVersionRefused);
    assertThrows(IllegalArgumentException.class, () -> filter(ServerJar.WIRE_VERSION + 1));
    assertThrows(IllegalArgumentException.class, () -> filter(ServerJar.OLDEST_WIRE_VERSION - 1));
  }

  @Test
  public void aFilterCutShortOrWithBytesLeftOverIsRefused() {
    byte[] bytes = filter(ServerJar.WIRE_VERSION).toByteArray();
    for (int cut = 4; cut < bytes.length; cut++) {
      byte[] shorter = Arrays.copyOf(bytes, cut);
      assertThrows(DeserializationException.class, () -> SkipScanFilter.parseFrom(shorter));
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(DeserializationException.class, () -> SkipScanFilter.parseFrom(longer));
  }

  @Test
  public void anAggregateSpecKeepsItsByteCapFromVersionTwoAndVersionOneHasNone() throws Exception {
    AggregateSpec capped = AggregateSpec.parseFrom(count(4096, 2).toByteArray());
    assertEquals(2, capped.version);
    assertArrayEquals(count(4096, 2).toByteArray(), capped.toByteArray());
    AggregateSpec old = AggregateSpec.parseFrom(count(0, 1).toByteArray());
    assertEquals(1, old.version);
    assertThrows(IllegalArgumentException.class, () -> count(4096, 1));
  }

  @Test
  public void anAggregateSpecOfAVersionTheJarDoesNotReadIsRefusedAsSuch() {
    byte[] newer = count(0, ServerJar.WIRE_VERSION).toByteArray();
    ByteBuffer.wrap(newer).putInt(ServerJar.WIRE_VERSION + 1);
    assertThrows(WireVersionRefused.class, () -> AggregateSpec.parseFrom(newer));
  }

  private static final KeyCheck CHECK =
      new KeyCheck(LAYOUT, new byte[] {CellType.INT, CellType.BYTES}, new int[] {0, 0});

  private static AggregateSpec checking(boolean skip, int version) {
    return new AggregateSpec(
        LAYOUT,
        new Operand[0],
        null,
        new int[0],
        new AggregateFunction[] {AggregateFunction.countRows()},
        100,
        250,
        0,
        CHECK,
        skip,
        version);
  }

  @Test
  public void anAggregateSpecChecksRowKeysFromVersionThreeAndOlderVersionsCannotAsk()
      throws Exception {
    for (boolean skip : new boolean[] {false, true}) {
      AggregateSpec read = AggregateSpec.parseFrom(checking(skip, 3).toByteArray());
      assertEquals(skip, read.skipBadKeys);
      assertTrue(read.keyCheck != null);
      assertArrayEquals(checking(skip, 3).toByteArray(), read.toByteArray());
    }
    assertEquals(null, AggregateSpec.parseFrom(count(0, 3).toByteArray()).keyCheck);
    assertThrows(IllegalArgumentException.class, () -> checking(false, 2));
  }

  /** A batch of {@code spec} after folding in rows with these keys, one cell each. */
  private static AggregateBatch folded(AggregateSpec spec, byte[]... keys) throws Exception {
    RowAggregator aggregator = new RowAggregator(spec);
    for (byte[] key : keys) {
      aggregator.add(
          org.apache.hadoop.hbase.CellUtil.createCell(key, new byte[] {'f'}, new byte[] {'v'}));
    }
    aggregator.endOfRows();
    return AggregateBatch.read(spec, aggregator.takeBatch());
  }

  @Test
  public void aBatchCarriesTheRowsLeftOutForTheirKeysOrTheKeyThatFailedTheAggregation()
      throws Exception {
    byte[] good = {(byte) 0x80, 0, 0, 1, 'a'};
    byte[] shortKey = {1, 2};
    AggregateBatch skipping = folded(checking(true, 3), good, shortKey, good.clone());
    assertEquals(1, skipping.badKeys);
    assertEquals(null, skipping.badKey);
    assertEquals(3, skipping.rowsScanned);
    assertEquals(2L, skipping.states.get(0)[0][1]); // count(*) of the two good rows
    AggregateBatch failing = folded(checking(false, 3), good, shortKey, new byte[] {9, 9, 9, 9});
    assertArrayEquals(shortKey, failing.badKey);
    AggregateBatch older = folded(count(0, 2), good, shortKey);
    assertEquals(0, older.badKeys);
    assertEquals(2L, older.states.get(0)[0][1]); // no check: every row counts
  }

  private static java.util.List<IndexSpec> indexSpecs() {
    Operand email = Operand.cell(new byte[] {'f'}, new byte[] {'e'}, CellType.BYTES, 0, 0);
    Operand age = Operand.packed(new byte[] {'p'}, 3, CellType.DECIMAL, 20, 2);
    return java.util.List.of(
        new IndexSpec(
            "ns:by_email", new Operand[] {email}, new byte[][] {{'f'}}, new byte[][] {{'n'}}),
        new IndexSpec("by_age", new Operand[] {age, email}, new byte[0][], new byte[0][]));
  }

  @Test
  public void indexSpecsAreReadBackFromVersionFiveAndNoEarlierVersionCarriesThem()
      throws Exception {
    for (int v = IndexSpec.FIRST_VERSION; v <= ServerJar.WIRE_VERSION; v++) {
      byte[] bytes = IndexSpec.toBytes(indexSpecs(), v);
      java.util.List<IndexSpec> read = IndexSpec.parseFrom(bytes);
      assertArrayEquals(bytes, IndexSpec.toBytes(read, v));
      assertEquals("by_age", read.get(1).indexTable());
      assertArrayEquals(
          bytes, IndexSpec.toBytes(IndexSpec.fromProperty(IndexSpec.toProperty(read, v)), v));
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> IndexSpec.toBytes(indexSpecs(), IndexSpec.FIRST_VERSION - 1));
  }

  @Test
  public void indexSpecsOfAnotherVersionCutShortOrPaddedAreRefused() {
    byte[] bytes = IndexSpec.toBytes(indexSpecs(), ServerJar.WIRE_VERSION);
    byte[] newer = bytes.clone();
    ByteBuffer.wrap(newer).putInt(ServerJar.WIRE_VERSION + 1);
    assertThrows(WireVersionRefused.class, () -> IndexSpec.parseFrom(newer));
    byte[] older = bytes.clone();
    ByteBuffer.wrap(older).putInt(IndexSpec.FIRST_VERSION - 1);
    assertThrows(java.io.IOException.class, () -> IndexSpec.parseFrom(older));
    for (int cut = 4; cut < bytes.length; cut++) {
      byte[] shorter = Arrays.copyOf(bytes, cut);
      assertThrows(java.io.IOException.class, () -> IndexSpec.parseFrom(shorter));
    }
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(java.io.IOException.class, () -> IndexSpec.parseFrom(longer));
    assertThrows(java.io.IOException.class, () -> IndexSpec.fromProperty("not base64!"));
  }
}
