// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory that spark-hbase-sql's aggregations may hold in one region server, in estimated bytes,
 * shared by all of its regions' scans (the model is Phoenix's GlobalMemoryManager). An aggregation
 * reserves the bytes of each group it adds and gives them back when it sends its groups. One that
 * cannot reserve more sends what it holds and starts again, so the groups of all scans together
 * stay within the budget, give or take one group per scan: a scan with no groups always takes the
 * one it needs, and with a budget spent by others it sends every row's group as it comes, which the
 * client then aggregates. Never an OutOfMemoryError for our groups.
 */
public final class MemoryBudget {
  /** The region server setting: the share of its heap for our aggregations. */
  public static final String SHARE_KEY = "spark.hbase.server.aggregation.memory.share";

  public static final double DEFAULT_SHARE = 0.1;

  private static volatile MemoryBudget server;

  private final long limit;
  private final AtomicLong used = new AtomicLong();

  public MemoryBudget(long limit) {
    if (limit <= 0)
      throw new IllegalArgumentException("a memory budget must be positive, not " + limit);
    this.limit = limit;
  }

  /**
   * The budget of this region server: `share` of its heap, set once by the first region that asks.
   */
  static MemoryBudget ofServer(double share) {
    MemoryBudget budget = server;
    if (budget == null) {
      synchronized (MemoryBudget.class) {
        if (server == null) {
          double valid = share > 0 && share < 1 ? share : DEFAULT_SHARE;
          server = new MemoryBudget((long) (Runtime.getRuntime().maxMemory() * valid));
        }
        budget = server;
      }
    }
    return budget;
  }

  /** Reserves `bytes` if they fit; false, reserving nothing, when they do not. */
  public boolean tryReserve(long bytes) {
    while (true) {
      long now = used.get();
      if (now + bytes > limit) return false;
      if (used.compareAndSet(now, now + bytes)) return true;
    }
  }

  /** Reserves `bytes` whether they fit or not: the one group a scan must hold to make progress. */
  public void reserve(long bytes) {
    used.addAndGet(bytes);
  }

  public void release(long bytes) {
    used.addAndGet(-bytes);
  }

  public long used() {
    return used.get();
  }

  public long limit() {
    return limit;
  }
}
