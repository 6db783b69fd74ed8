// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local.kerberos;

import java.io.File;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.MiniYARNCluster;

/**
 * A one-node YARN (Hadoop's MiniYARNCluster) on 127.0.0.1, for the one thing a local master cannot
 * show: Spark's driver obtaining HBase delegation tokens and its executors, JVMs without a keytab
 * in YARN containers, authenticating with them. YARN itself runs without Kerberos (its clients fall
 * back to simple authentication); the HBase it is used with does not.
 *
 * <p>Writes {@code <dir>/yarn-site.xml} (the ResourceManager's addresses, for HADOOP_CONF_DIR) once
 * it serves, then serves until its stdin closes or it is killed.
 *
 * <p>Usage: {@code LocalYarn <dir> <node memory MB>}
 */
public final class LocalYarn {
  private LocalYarn() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: LocalYarn <dir> <node memory MB>");
      System.exit(1);
    }
    File dir = new File(args[0]).getAbsoluteFile();
    dir.mkdirs();
    Configuration conf = new YarnConfiguration();
    conf.set(YarnConfiguration.RM_HOSTNAME, "127.0.0.1");
    conf.set(YarnConfiguration.NM_BIND_HOST, "127.0.0.1");
    conf.set(YarnConfiguration.RM_BIND_HOST, "127.0.0.1");
    conf.setInt(YarnConfiguration.NM_PMEM_MB, Integer.parseInt(args[1]));
    conf.setInt(YarnConfiguration.NM_VCORES, 4);
    conf.setInt(YarnConfiguration.RM_SCHEDULER_MINIMUM_ALLOCATION_MB, 128);
    conf.setBoolean(YarnConfiguration.NM_PMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.NM_VMEM_CHECK_ENABLED, false);
    conf.setBoolean(YarnConfiguration.YARN_MINICLUSTER_FIXED_PORTS, false);
    conf.setBoolean(YarnConfiguration.TIMELINE_SERVICE_ENABLED, false);
    // A nearly full disk on a CI machine must not take the only node out of service.
    conf.setFloat(YarnConfiguration.NM_MAX_PER_DISK_UTILIZATION_PERCENTAGE, 99.9f);
    conf.set(YarnConfiguration.NM_LOCAL_DIRS, new File(dir, "local").getPath());
    conf.set(YarnConfiguration.NM_LOG_DIRS, new File(dir, "logs").getPath());

    MiniYARNCluster yarn = new MiniYARNCluster("spark-hbase-sql", 1, 1, 1);
    yarn.init(conf);
    yarn.start();

    Configuration site = new Configuration(false);
    Configuration running = yarn.getConfig();
    for (String key :
        new String[] {
          YarnConfiguration.RM_ADDRESS, YarnConfiguration.RM_SCHEDULER_ADDRESS,
          YarnConfiguration.RM_RESOURCE_TRACKER_ADDRESS, YarnConfiguration.RM_ADMIN_ADDRESS,
          YarnConfiguration.RM_WEBAPP_ADDRESS, YarnConfiguration.RM_HOSTNAME
        }) {
      site.set(key, running.get(key));
    }
    File out = new File(dir, "yarn-site.xml");
    File tmp = new File(dir, "yarn-site.xml.tmp");
    try (OutputStream o = new FileOutputStream(tmp)) {
      site.writeXml(o);
    }
    Files.move(tmp.toPath(), out.toPath(), StandardCopyOption.ATOMIC_MOVE);
    System.out.println("READY " + running.get(YarnConfiguration.RM_ADDRESS));
    System.out.flush();

    while (System.in.read() != -1) {
      // serve until the parent closes our stdin
    }
    // Not yarn.stop(): the NodeManager's log handler would wait for its (hours-long) log retention.
    Runtime.getRuntime().halt(0);
  }
}
