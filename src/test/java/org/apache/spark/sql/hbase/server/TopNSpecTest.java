// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.Test;

/** A top-n as a region server reads it, and the order in which it ranks rows. */
public class TopNSpecTest {
  private static final KeyLayout LAYOUT =
      new KeyLayout(new byte[] {KeyLayout.FIXED, KeyLayout.REST}, new int[] {4, 0}, new byte[0]);

  private static final Operand[] OPERANDS = {
    Operand.key(1), Operand.cell(new byte[] {'f'}, new byte[] {'v'}, CellType.INT, 0, 0)
  };

  private static TopNSpec spec(boolean[] descending, boolean[] nullsFirst, int version) {
    return new TopNSpec(
        LAYOUT, OPERANDS, new int[] {1, 0}, descending, nullsFirst, 10, 250, null, version);
  }

  private static TopNSpec ascending() {
    return spec(new boolean[2], new boolean[2], ServerJar.WIRE_VERSION);
  }

  private static byte[] i(int v) {
    return OrderedBytes.ofIntegral(v, 4);
  }

  @Test
  public void isReadBackInEveryVersionThatHasIt() throws Exception {
    for (int v = TopNSpec.FIRST_VERSION; v <= ServerJar.WIRE_VERSION; v++) {
      TopNSpec written = spec(new boolean[] {true, false}, new boolean[] {false, true}, v);
      byte[] bytes = written.toByteArray();
      assertEquals(v, ByteBuffer.wrap(bytes).getInt());
      TopNSpec read = TopNSpec.parseFrom(bytes);
      assertArrayEquals(bytes, read.toByteArray());
      assertEquals(written.toString(), read.toString());
    }
  }

  @Test
  public void isRefusedInAVersionWithoutItAndInOneTheJarDoesNotRead() {
    assertThrows(
        IllegalArgumentException.class,
        () -> spec(new boolean[2], new boolean[2], TopNSpec.FIRST_VERSION - 1));
    byte[] newer = ascending().toByteArray();
    ByteBuffer.wrap(newer).putInt(ServerJar.WIRE_VERSION + 1);
    assertThrows(WireVersionRefused.class, () -> TopNSpec.parseFrom(newer));
    byte[] older = ascending().toByteArray();
    ByteBuffer.wrap(older).putInt(TopNSpec.FIRST_VERSION - 1);
    IOException e = assertThrows(IOException.class, () -> TopNSpec.parseFrom(older));
    assertTrue(e.getMessage(), e.getMessage().contains("Corrupt top-n"));
  }

  @Test
  public void refusesBytesCutShortOrPadded() {
    byte[] bytes = ascending().toByteArray();
    for (int cut = 4; cut < bytes.length; cut++) {
      byte[] shorter = java.util.Arrays.copyOf(bytes, cut);
      assertThrows(IOException.class, () -> TopNSpec.parseFrom(shorter));
    }
    byte[] padded = java.util.Arrays.copyOf(bytes, bytes.length + 1);
    assertThrows(IOException.class, () -> TopNSpec.parseFrom(padded));
  }

  @Test
  public void refusesASortOperandItDoesNotHave() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new TopNSpec(
                LAYOUT,
                OPERANDS,
                new int[] {2},
                new boolean[1],
                new boolean[1],
                10,
                250,
                null,
                ServerJar.WIRE_VERSION));
  }

  @Test
  public void ranksByEachOperandInTurnWithItsDirectionAndNullOrder() {
    TopNSpec asc = ascending();
    assertTrue(asc.compare(new byte[][] {i(-5), i(9)}, new byte[][] {i(3), i(0)}) < 0);
    assertTrue(asc.compare(new byte[][] {i(3), i(1)}, new byte[][] {i(3), i(0)}) > 0);
    assertEquals(0, asc.compare(new byte[][] {i(3), null}, new byte[][] {i(3), null}));
    // Not NULLS FIRST: NULLs come after every value.
    assertTrue(asc.compare(new byte[][] {null, i(0)}, new byte[][] {i(3), i(0)}) > 0);
    TopNSpec descNullsFirst =
        spec(new boolean[] {true, true}, new boolean[] {true, false}, ServerJar.WIRE_VERSION);
    assertTrue(descNullsFirst.compare(new byte[][] {i(5), i(0)}, new byte[][] {i(3), i(0)}) < 0);
    assertTrue(descNullsFirst.compare(new byte[][] {null, i(0)}, new byte[][] {i(9), i(0)}) < 0);
    assertTrue(descNullsFirst.compare(new byte[][] {i(1), null}, new byte[][] {i(1), i(0)}) > 0);
  }
}
