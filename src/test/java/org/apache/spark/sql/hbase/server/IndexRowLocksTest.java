// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Test;

/**
 * The index locks' two promises: timestamps that rise but never run ahead of the clock, and a
 * bounded wait.
 */
public class IndexRowLocksTest {
  private static final List<byte[]> ROW = List.of(Bytes.toBytes("r1"));

  @Test
  public void eachLockOfARowGetsAHigherTimestampThatIsNeverAheadOfTheClock() throws IOException {
    IndexRowLocks locks = new IndexRowLocks(16, 1_000);
    long last = Long.MIN_VALUE;
    for (int i = 0; i < 20; i++) {
      IndexRowLocks.Held held = locks.lock(ROW, "test");
      long now = System.currentTimeMillis();
      held.release();
      assertTrue(held.timestamp > last);
      assertTrue(held.timestamp <= now);
      last = held.timestamp;
    }
  }

  @Test
  public void aWriteThatWaitsTooLongForAnotherFailsAndSaysWhy() throws Exception {
    IndexRowLocks locks = new IndexRowLocks(16, 50);
    IndexRowLocks.Held held = locks.lock(ROW, "first");
    try {
      ExecutionException failed =
          assertThrows(
              ExecutionException.class,
              () ->
                  CompletableFuture.supplyAsync(
                          () -> {
                            try {
                              return locks.lock(ROW, "writing the indexes of t");
                            } catch (IOException e) {
                              throw new java.io.UncheckedIOException(e);
                            }
                          })
                      .get());
      String message = failed.getCause().getCause().getMessage();
      assertTrue(message, message.startsWith("writing the indexes of t: another write"));
      assertTrue(message, message.endsWith("the write was not applied"));
    } finally {
      held.release();
    }
    IndexRowLocks.Held again = locks.lock(ROW, "after");
    again.release();
    assertTrue(again.timestamp > held.timestamp); // the row is free again, and its clock moved on
  }
}
