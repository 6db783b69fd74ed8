// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * Readiness probe of the embedded HBase ({@code spark-hbase local start}): a small HBase client in
 * its own JVM that exits 0 once HBase serves clients, 2 if it did not within {@code args[0]}
 * seconds. It reads hbase-site.xml from the classpath (the conf dir of the local HBase).
 *
 * <p>Open ports are not enough: the master answers admin calls only once it is initialized
 * (PleaseHoldException before), reading hbase:meta needs the region server to have opened it, and
 * after a restart the regions of user tables still sit on the previous (now dead) region server
 * until they are reassigned.
 *
 * <p>With several region servers, it also waits for all of them to report, then has the balancer
 * spread the regions over them once. A region server just started on the port of one that was
 * killed is waited for by its port and start code: until HBase notices the kill, the dead one still
 * counts as live. The system property {@value #REGION_SERVERS} ({@code 1:port,2:port,...}) names
 * the region servers by number, for the messages.
 *
 * <p>Usage: {@code LocalHBaseProbe <seconds> [<region servers> [<started after ms> <port>...]]};
 * prints {@code WAITING for <what>} each time what it waits for changes (the launcher shows these
 * while it waits), then READY or NOT READY: reason.
 */
public final class LocalHBaseProbe {
  static final String REGION_SERVERS = "spark.hbase.local.regionServers";
  private static final TableName ACL_TABLE = TableName.valueOf("hbase", "acl");

  private final int regionServers;
  private final long startedAfter;
  private final Set<Integer> startedPorts;
  private final boolean authorization;
  private final Map<Integer, Integer> numberByPort;

  /** What the check in progress waits for if it fails: set before each step. */
  private String waitingFor = "a connection to HBase";

  private LocalHBaseProbe(
      int regionServers,
      long startedAfter,
      Set<Integer> startedPorts,
      boolean authorization,
      Map<Integer, Integer> numberByPort) {
    this.regionServers = regionServers;
    this.startedAfter = startedAfter;
    this.startedPorts = startedPorts;
    this.authorization = authorization;
    this.numberByPort = numberByPort;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length == 3) {
      System.err.println(
          "usage: LocalHBaseProbe <seconds> [<region servers> [<started after ms> <port>...]]");
      System.exit(1);
    }
    long deadline = System.currentTimeMillis() + Long.parseLong(args[0]) * 1000L;
    int regionServers = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    long startedAfter = args.length > 2 ? Long.parseLong(args[2]) : 0L;
    Set<Integer> startedPorts = new HashSet<>();
    for (int i = 3; i < args.length; i++) {
      startedPorts.add(Integer.parseInt(args[i]));
    }
    boolean balanced = regionServers == 1;
    Configuration conf = SuperuserLogin.clientConf();
    // One short attempt per round; the loop below does the retrying.
    conf.setInt("hbase.client.retries.number", 1);
    conf.setInt("hbase.client.pause", 100);
    conf.setInt("hbase.rpc.timeout", 5000);
    conf.setInt("hbase.client.operation.timeout", 10000);
    conf.setInt("hbase.client.meta.operation.timeout", 10000);
    conf.setInt("zookeeper.recovery.retry", 1);
    conf.setInt("zookeeper.recovery.retry.intervalmill", 200);
    String zkHost = conf.get("hbase.zookeeper.quorum");
    int zkPort = conf.getInt("hbase.zookeeper.property.clientPort", 2181);
    LocalHBaseProbe probe =
        new LocalHBaseProbe(
            regionServers,
            startedAfter,
            startedPorts,
            SuperuserLogin.authorizationOn(conf),
            numbersByPort(System.getProperty(REGION_SERVERS, "")));
    String reason = "ZooKeeper on " + zkHost + ":" + zkPort;
    String lastError = null;
    String shown = null;
    boolean ready = false;
    Connection c = null;
    while (!ready && System.currentTimeMillis() < deadline) {
      try {
        // Without ZooKeeper the client would sit in its own slow retries.
        if (c == null && zkAnswers(zkHost, zkPort)) {
          c = ConnectionFactory.createConnection(conf);
        }
        if (c != null) {
          reason = probe.check(c);
          ready = reason == null;
          if (ready && !balanced) {
            reason = "the balancer to spread the regions over the region servers";
            try (Admin admin = c.getAdmin()) {
              admin.balance();
            }
            balanced = true;
            ready = false; // once the moves are done
          }
        }
      } catch (Exception e) {
        reason = probe.waitingFor;
        lastError = e.toString();
        // Reuse the connection while it works: each new one is a ZooKeeper session and an RPC
        // connection for a server that is busy starting.
        if (c != null && (c.isClosed() || c.isAborted())) {
          c = null;
        }
      }
      if (!ready) {
        if (!reason.equals(shown)) {
          System.out.println("WAITING for " + reason);
          System.out.flush();
          shown = reason;
        }
        Thread.sleep(300);
      }
    }
    System.out.println(
        ready
            ? "READY"
            : "NOT READY: waiting for "
                + reason
                + (lastError == null ? "" : " (last error: " + lastError + ")"));
    System.out.flush();
    // The HBase client leaves non-daemon threads behind.
    System.exit(ready ? 0 : 2);
  }

  /**
   * Null once the master, hbase:meta, the region servers (among them one started after {@code
   * startedAfter} on each of {@code startedPorts}) and every region of every enabled table are
   * available, and with {@code authorization}, HBase's ACL table; else what is still awaited.
   * Throws when a step fails: {@link #waitingFor} then says what that step waits for.
   */
  String check(Connection c) throws Exception {
    waitingFor = "the master to initialize";
    try (Admin admin = c.getAdmin()) {
      admin.listNamespaceDescriptors();
      // The AccessController refuses every grant and check until its table is online.
      if (authorization) {
        waitingFor = ACL_TABLE + " to come online";
        if (!admin.isTableAvailable(ACL_TABLE)) {
          return waitingFor;
        }
      }
      waitingFor = TableName.META_TABLE_NAME + " to come online";
      try (Table meta = c.getTable(TableName.META_TABLE_NAME);
          ResultScanner scanner = meta.getScanner(new Scan().setLimit(1))) {
        scanner.next();
      }
      waitingFor = "the region servers to report";
      Set<ServerName> live = new HashSet<>();
      for (ServerName server : admin.getRegionServers()) {
        // The earlier server on a restarted one's port is dead, whatever HBase still thinks.
        if (!startedPorts.contains(server.getPort()) || server.getStartcode() >= startedAfter) {
          live.add(server);
        }
      }
      List<String> notStarted = missing(live, startedPorts);
      if (!notStarted.isEmpty()) {
        return String.join(", ", notStarted) + " to report";
      }
      if (live.size() < regionServers) {
        List<String> missing = missing(live, numberByPort.keySet());
        return missing.isEmpty()
            ? (regionServers - live.size())
                + " more of "
                + regionServers
                + " region servers to report"
            : String.join(", ", missing) + " to report";
      }
      waitingFor = "the regions to be assigned";
      int unassigned = 0;
      for (TableName table : admin.listTableNames()) {
        if (!admin.isTableEnabled(table)) {
          continue;
        }
        try (RegionLocator locator = c.getRegionLocator(table)) {
          for (HRegionLocation loc : locator.getAllRegionLocations()) {
            if (!live.contains(loc.getServerName())) {
              unassigned++;
            }
          }
        }
      }
      if (unassigned > 0) {
        return unassigned + (unassigned == 1 ? " region" : " regions") + " to be assigned";
      }
      waitingFor = "the regions in transition";
      int inTransition =
          admin
              .getClusterMetrics(EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
              .getRegionStatesInTransition()
              .size();
      if (inTransition > 0) {
        return inTransition + (inTransition == 1 ? " region" : " regions") + " in transition";
      }
      return null;
    }
  }

  /** The region servers on {@code ports} that are not among the {@code live} ones, by port. */
  private List<String> missing(Set<ServerName> live, Set<Integer> ports) {
    List<String> missing = new ArrayList<>();
    new TreeSet<>(ports)
        .forEach(
            port -> {
              if (live.stream().noneMatch(server -> server.getPort() == port)) {
                missing.add(regionServer(port));
              }
            });
    return missing;
  }

  private String regionServer(int port) {
    Integer number = numberByPort.get(port);
    return (number == null ? "the region server" : "region server " + number) + " on port " + port;
  }

  /** {@code 1:16020,2:16030} as port to number; empty for an empty string. */
  static Map<Integer, Integer> numbersByPort(String numbered) {
    Map<Integer, Integer> byPort = new TreeMap<>();
    for (String entry : numbered.split(",")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] parts = entry.split(":");
      if (parts.length != 2) {
        throw new IllegalArgumentException(
            REGION_SERVERS + ": '" + entry + "' is not <number>:<port> (in '" + numbered + "')");
      }
      byPort.put(Integer.parseInt(parts[1].trim()), Integer.parseInt(parts[0].trim()));
    }
    return byPort;
  }

  /** ZooKeeper's four-letter health check; HBase's embedded ZooKeeper allows it. */
  static boolean zkAnswers(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
      s.setSoTimeout(1000);
      s.getOutputStream().write("ruok".getBytes(StandardCharsets.US_ASCII));
      byte[] reply = s.getInputStream().readNBytes(4);
      return "imok".equals(new String(reply, StandardCharsets.US_ASCII));
    } catch (Exception e) {
      return false;
    }
  }
}
