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
 * that an index row deleted by one write is never masked when a later write puts it back. They are
 * the clock's time, never ahead of it: a write waits for the next millisecond when its stripes
 * already gave this one.
 */
final class IndexRowLocks {
  private final ReentrantLock[] stripes;
  private final long[] lastTimestamps;
  private final long waitMillis;

  /** The longest wait for the clock to pass the stripes' last timestamp. */
  static final long MAX_CLOCK_WAIT_MILLIS = 1_000;

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
      long timestamp = nextTimestamp(wanted);
      for (int s : wanted) lastTimestamps[s] = timestamp;
      return new Held(wanted, timestamp);
    } catch (InterruptedException e) {
      unlock(wanted, taken);
      throw (IOException) new InterruptedIOException(what + ": interrupted").initCause(e);
    } catch (IOException e) {
      unlock(wanted, taken);
      throw e;
    }
  }

  /**
   * Waits until every stripe held when this was called has been released once: the writes then in
   * progress are done. False when that took longer than {@code timeoutMillis}, or was interrupted.
   */
  boolean awaitIdle(long timeoutMillis) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
    try {
      for (ReentrantLock stripe : stripes) {
        if (!stripe.tryLock(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS))
          return false;
        stripe.unlock();
      }
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * The clock's time once it is past every timestamp the stripes gave: never ahead of the clock, so
   * that after a region moves, the next server's timestamps (from its own clock) are above them.
   * When the clock went back by more than {@link #MAX_CLOCK_WAIT_MILLIS}, one past the last
   * instead.
   */
  private long nextTimestamp(int[] wanted) throws InterruptedException {
    long last = Long.MIN_VALUE;
    for (int s : wanted) last = Math.max(last, lastTimestamps[s]);
    long now = System.currentTimeMillis();
    if (last - now > MAX_CLOCK_WAIT_MILLIS) return last + 1;
    while (now <= last) {
      Thread.sleep(1); // until the next millisecond: at most 1 ms, unless the clock went back
      now = System.currentTimeMillis();
    }
    return now;
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
