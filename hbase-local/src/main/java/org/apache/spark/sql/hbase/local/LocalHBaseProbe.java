package org.apache.spark.sql.hbase.local;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.Set;
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
 * killed is waited for by its port and start code: until HBase notices the kill, the dead one
 * still counts as live.
 *
 * <p>Usage: {@code LocalHBaseProbe <seconds> [<region servers> [<started after ms> <port>...]]};
 * prints READY or NOT READY: reason.
 */
public final class LocalHBaseProbe {
  private static final TableName ACL_TABLE = TableName.valueOf("hbase", "acl");

  private LocalHBaseProbe() {}

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
    String last = "ZooKeeper does not answer on " + zkHost + ":" + zkPort;
    boolean ready = false;
    Connection c = null;
    while (!ready && System.currentTimeMillis() < deadline) {
      try {
        // Without ZooKeeper the client would sit in its own slow retries.
        if (c == null && zkAnswers(zkHost, zkPort)) {
          c = ConnectionFactory.createConnection(conf);
        }
        if (c != null) {
          ready = check(c, regionServers, startedAfter, startedPorts,
              SuperuserLogin.authorizationOn(conf));
          if (ready && !balanced) {
            try (Admin admin = c.getAdmin()) {
              admin.balance();
            }
            balanced = true;
            ready = false; // once the moves are done
          }
        }
      } catch (Exception e) {
        last = e.toString();
        // Reuse the connection while it works: each new one is a ZooKeeper session and an RPC
        // connection for a server that is busy starting.
        if (c != null && (c.isClosed() || c.isAborted())) {
          c = null;
        }
      }
      if (!ready) {
        Thread.sleep(300);
      }
    }
    System.out.println(ready ? "READY" : "NOT READY: " + last);
    System.out.flush();
    // The HBase client leaves non-daemon threads behind.
    System.exit(ready ? 0 : 2);
  }

  /**
   * True if the master, hbase:meta, {@code regionServers} region servers (among them one started
   * after {@code startedAfter} on each of {@code startedPorts}) and every region of every enabled
   * table are available, and with {@code authorization}, HBase's ACL table.
   */
  static boolean check(
      Connection c, int regionServers, long startedAfter, Set<Integer> startedPorts,
      boolean authorization) throws Exception {
    try (Admin admin = c.getAdmin()) {
      admin.listNamespaceDescriptors();
      // The AccessController refuses every grant and check until its table is online.
      if (authorization && !admin.isTableAvailable(ACL_TABLE)) {
        throw new IllegalStateException(ACL_TABLE + " not available yet");
      }
      try (Table meta = c.getTable(TableName.META_TABLE_NAME);
          ResultScanner scanner = meta.getScanner(new Scan().setLimit(1))) {
        scanner.next();
      }
      Set<ServerName> live = new HashSet<>();
      for (ServerName server : admin.getRegionServers()) {
        // The earlier server on a restarted one's port is dead, whatever HBase still thinks.
        if (!startedPorts.contains(server.getPort()) || server.getStartcode() >= startedAfter) {
          live.add(server);
        }
      }
      for (int port : startedPorts) {
        if (live.stream().noneMatch(server -> server.getPort() == port)) {
          throw new IllegalStateException(
              "the region server started on port " + port + " has not reported yet");
        }
      }
      if (live.size() < regionServers) {
        throw new IllegalStateException(live.size() + " of " + regionServers + " region servers up");
      }
      for (TableName table : admin.listTableNames()) {
        if (!admin.isTableEnabled(table)) {
          continue;
        }
        try (RegionLocator locator = c.getRegionLocator(table)) {
          for (HRegionLocation loc : locator.getAllRegionLocations()) {
            if (!live.contains(loc.getServerName())) {
              throw new IllegalStateException(
                  loc.getRegion().getRegionNameAsString() + " not assigned yet");
            }
          }
        }
      }
      int inTransition = admin.getClusterMetrics(
              EnumSet.of(ClusterMetrics.Option.REGIONS_IN_TRANSITION))
          .getRegionStatesInTransition().size();
      if (inTransition > 0) {
        throw new IllegalStateException(inTransition + " regions in transition");
      }
      return true;
    }
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
