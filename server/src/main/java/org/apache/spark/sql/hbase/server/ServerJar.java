package org.apache.spark.sql.hbase.server;

/**
 * Facts about the server jar that the Spark side checks before it sends anything to a region
 * server. Every payload the client sends (filter state, predicates) starts with WIRE_VERSION, so
 * a region server running an older jar refuses it instead of misreading it.
 */
public final class ServerJar {
  /** Version of the byte layout of everything sent to region servers. */
  public static final int WIRE_VERSION = 1;

  /** The region coprocessor that aggregates; named here so that clients need not load its class. */
  public static final String AGGREGATE_OBSERVER = "org.apache.spark.sql.hbase.server.AggregateRegionObserver";

  /** The region coprocessor that marks writes to range-indexed tables. */
  public static final String WRITE_MARK_OBSERVER = "org.apache.spark.sql.hbase.server.WriteMarkObserver";

  private ServerJar() {}

  /** The jar's build version, from its manifest; "dev" when run from classes. */
  public static String buildVersion() {
    String v = ServerJar.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }
}
