// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.apache.hadoop.metrics2.impl.JmxCacheBuster;

/**
 * The main class of the embedded HBase's server JVMs: runs HBase's own main class, named by the
 * first argument (the master's or a region server's), with the rest of the arguments, after turning
 * off HBase's JMX cache buster.
 *
 * <p>Whenever a region opens or closes, HBase schedules a restart of Hadoop's metrics system five
 * seconds later, so that JMX forgets the beans of regions that are gone; each restart snapshots the
 * metrics of every region and table the server holds. A test run creates hundreds of tables on one
 * machine, and those restarts took about a seventh of a region server's CPU. The embedded HBase has
 * no metrics sink; only its JMX view keeps the beans of regions gone.
 */
public final class LocalHBaseServer {
  private LocalHBaseServer() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) {
      throw new IllegalArgumentException(
          "usage: LocalHBaseServer <HBase main class> [its arguments]");
    }
    // First, so that a classpath without HBase fails naming the class it lacks.
    Method main = Class.forName(args[0]).getMethod("main", String[].class);
    // stop() cancels the restart scheduled last and fails while there is none: schedule one first.
    JmxCacheBuster.clearJmxCache();
    JmxCacheBuster.stop();
    try {
      main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
