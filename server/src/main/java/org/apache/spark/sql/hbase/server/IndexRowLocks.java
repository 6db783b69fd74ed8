// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The locks that keep one data row's index maintenance from overlapping another's, from before its
 * index rows are written until after they are verified. HBase's own row lock cannot: an ordinary
 * batch holds it shared, and releases it before the last phase. Rows map onto a fixed set of
 * stripes, taken in stripe order so that two batches never wait on each other.
 *
 * <p>Each stripe also hands out the timestamps of its rows' index cells, strictly increasing, so
 * that an index row deleted by one write is never masked when a later write puts it back.
 */
final class IndexRowLocks {
  private final ReentrantLock[] stripes;
  private final long[] lastTimestamps;
  private final long waitMillis;

  IndexRowLocks(int stripes, long waitMillis) {
    this.stripes = new ReentrantLock[stripes];
    for (int i = 0; i < stripes; i++) this.stripes[i] = new ReentrantLock();
    this.lastTimestamps = new long[stripes];
    this.waitMillis = waitMillis;
  }

  /** The stripes a batch's rows are under, taken: one held lock to release later. */
  final class Held {
    private final int[] taken;
    final long timestamp;

    private Held(int[] taken, long timestamp) {
      this.taken = taken;
      this.timestamp = timestamp;
    }

    void release() {
      for (int i = taken.length - 1; i >= 0; i--) stripes[taken[i]].unlock();
    }
  }

  /**
   * Takes the stripes of {@code rows} and a timestamp above every one their rows had; fails naming
   * {@code what} when a stripe stays held longer than the wait allows.
   */
  Held lock(Iterable<byte[]> rows, String what) throws IOException {
    int[] wanted = stripesOf(rows);
    int taken = 0;
    try {
      for (; taken < wanted.length; taken++) {
        if (!stripes[wanted[taken]].tryLock(waitMillis, TimeUnit.MILLISECONDS)) {
          throw new IOException(
              what
                  + ": another write to the same rows kept their index locked for over "
                  + waitMillis
                  + " ms; the write was not applied");
        }
      }
    } catch (InterruptedException e) {
      unlock(wanted, taken);
      throw (IOException) new InterruptedIOException(what + ": interrupted").initCause(e);
    } catch (IOException e) {
      unlock(wanted, taken);
      throw e;
    }
    long timestamp = System.currentTimeMillis();
    for (int s : wanted) timestamp = Math.max(timestamp, lastTimestamps[s] + 1);
    for (int s : wanted) lastTimestamps[s] = timestamp;
    return new Held(wanted, timestamp);
  }

  private void unlock(int[] wanted, int taken) {
    for (int i = taken - 1; i >= 0; i--) stripes[wanted[i]].unlock();
  }

  private int[] stripesOf(Iterable<byte[]> rows) {
    boolean[] seen = new boolean[stripes.length];
    int n = 0;
    for (byte[] row : rows) {
      int s = Math.floorMod(Bytes.hashCode(row), stripes.length);
      if (!seen[s]) {
        seen[s] = true;
        n++;
      }
    }
    int[] out = new int[n];
    int k = 0;
    for (int s = 0; s < seen.length; s++) if (seen[s]) out[k++] = s;
    return Arrays.copyOf(out, k);
  }
}
