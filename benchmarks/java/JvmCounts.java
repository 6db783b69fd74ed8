// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import com.sun.tools.attach.VirtualMachine;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * What the soak benchmark counts in each JVM it watches, read over JMX after attaching to the
 * process: live threads, open file descriptors, heap used right after a full GC, and for a region
 * server its open scanners (HBase's activeScanners gauge), what its block cache and memstores hold,
 * the store files' indexes and bloom filters it keeps in memory, and its regions and store files.
 *
 * <p>Usage: java JvmCounts.java PID... ; prints one JSON object per PID, {"pid": .., "error": ..}
 * when that JVM cannot be reached.
 */
public class JvmCounts {
  public static void main(String[] args) {
    List<String> lines = new ArrayList<>();
    for (String pid : args) {
      try {
        lines.add(counts(pid));
      } catch (Exception e) {
        lines.add(
            "{\"pid\": " + pid + ", \"error\": \"" + String.valueOf(e).replace("\"", "'") + "\"}");
      }
    }
    lines.forEach(System.out::println);
  }

  /** A region server's gauge of bytes, in MB; null for another JVM. */
  private static String megabytes(MBeanServerConnection jmx, ObjectName bean, String gauge)
      throws Exception {
    if (!jmx.isRegistered(bean)) return "null";
    long bytes = ((Number) jmx.getAttribute(bean, gauge)).longValue();
    return String.valueOf(Math.round(bytes / 1048576.0 * 10) / 10.0);
  }

  /** A region server's count gauge; null for another JVM. */
  private static String count(MBeanServerConnection jmx, ObjectName bean, String gauge)
      throws Exception {
    return jmx.isRegistered(bean) ? String.valueOf(jmx.getAttribute(bean, gauge)) : "null";
  }

  private static String counts(String pid) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(pid);
    String address;
    try {
      address = vm.startLocalManagementAgent();
    } finally {
      vm.detach();
    }
    try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
      MBeanServerConnection jmx = connector.getMBeanServerConnection();
      ObjectName memory = new ObjectName(ManagementFactory.MEMORY_MXBEAN_NAME);
      jmx.invoke(memory, "gc", null, null);
      long heap = (Long) ((CompositeData) jmx.getAttribute(memory, "HeapMemoryUsage")).get("used");
      ObjectName threading = new ObjectName(ManagementFactory.THREAD_MXBEAN_NAME);
      int threads = (Integer) jmx.getAttribute(threading, "ThreadCount");
      // Threads by name with the numbers taken out: a leak shows as one pool that keeps growing.
      CompositeData[] all =
          (CompositeData[])
              jmx.invoke(
                  threading,
                  "dumpAllThreads",
                  new Object[] {false, false},
                  new String[] {"boolean", "boolean"});
      Map<String, Integer> pools = new TreeMap<>();
      for (CompositeData thread : all) {
        pools.merge(
            ((String) thread.get("threadName")).replaceAll("[0-9]+", "N").replace("\"", "'"),
            1,
            Integer::sum);
      }
      String biggest =
          pools.entrySet().stream()
              .sorted((a, b) -> b.getValue() - a.getValue())
              .limit(6)
              .map(e -> "\"" + e.getKey() + "\": " + e.getValue())
              .collect(Collectors.joining(", "));
      long fds =
          (Long)
              jmx.getAttribute(
                  new ObjectName(ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME),
                  "OpenFileDescriptorCount");
      ObjectName regionServer = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Server");
      String scanners =
          jmx.isRegistered(regionServer)
              ? String.valueOf(jmx.getAttribute(regionServer, "activeScanners"))
              : "null";
      return "{\"pid\": "
          + pid
          + ", \"threads\": "
          + threads
          + ", \"fds\": "
          + fds
          + ", \"heapAfterGcMb\": "
          + Math.round(heap / 1048576.0 * 10) / 10.0
          + ", \"activeScanners\": "
          + scanners
          + ", \"blockCacheMb\": "
          + megabytes(jmx, regionServer, "blockCacheSize")
          + ", \"memStoreMb\": "
          + megabytes(jmx, regionServer, "memStoreSize")
          + ", \"memStoreHeapMb\": "
          + megabytes(jmx, regionServer, "memStoreHeapSize")
          + ", \"storeFileIndexMb\": "
          + megabytes(jmx, regionServer, "storeFileIndexSize")
          + ", \"staticIndexMb\": "
          + megabytes(jmx, regionServer, "staticIndexSize")
          + ", \"staticBloomMb\": "
          + megabytes(jmx, regionServer, "staticBloomSize")
          + ", \"regions\": "
          + count(jmx, regionServer, "regionCount")
          + ", \"storeFiles\": "
          + count(jmx, regionServer, "storeFileCount")
          + ", \"threadPools\": {"
          + biggest
          + "}}";
    }
  }
}
