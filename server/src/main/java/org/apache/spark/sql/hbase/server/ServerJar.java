// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * Facts about the server jar that the Spark side checks before it sends anything to a region
 * server. Every payload (filter state, aggregations, aggregate batches) starts with its wire
 * version. A region server reads every version from {@link #OLDEST_WIRE_VERSION} to {@link
 * #WIRE_VERSION} and refuses others with {@link WireVersionRefused}; a client learns a server's
 * range with {@link ServerVersions} and writes the newest version both read, so region servers and
 * Spark applications can be upgraded one at a time.
 */
public final class ServerJar {
  /** The newest version of the byte layout of what is sent to and from region servers. */
  public static final int WIRE_VERSION = 6;

  /** The oldest version this jar still reads and writes. */
  public static final int OLDEST_WIRE_VERSION = 1;

  /** The region coprocessor that aggregates; named here so that clients need not load its class. */
  public static final String AGGREGATE_OBSERVER =
      "org.apache.spark.sql.hbase.server.AggregateRegionObserver";

  /** The region coprocessor that marks writes to range-indexed tables. */
  public static final String WRITE_MARK_OBSERVER =
      "org.apache.spark.sql.hbase.server.WriteMarkObserver";

  /** The region coprocessor that keeps global indexes exact. */
  public static final String INDEX_MAINTENANCE_OBSERVER =
      "org.apache.spark.sql.hbase.server.IndexMaintenanceObserver";

  /** The region coprocessor that merges UPDATEs into packed cells. */
  public static final String PACKED_MERGE_OBSERVER =
      "org.apache.spark.sql.hbase.server.PackedMergeObserver";

  /**
   * The priority tables give {@link #PACKED_MERGE_OBSERVER}: before the observers of the default
   * priority (HBase's Coprocessor.PRIORITY_USER), which must see the merged cells.
   */
  public static final int PACKED_MERGE_PRIORITY = Integer.MAX_VALUE / 2 - 1;

  private ServerJar() {}

  /** Whether this jar reads and writes bytes of wire version {@code version}. */
  public static boolean reads(int version) {
    return version >= OLDEST_WIRE_VERSION && version <= WIRE_VERSION;
  }

  /** The jar's build version, from its manifest; "dev" when run from classes. */
  public static String buildVersion() {
    String v = ServerJar.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
