// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import com.sun.tools.attach.VirtualMachine;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The rows a region server has read so far for each table it serves (HBase's per-region
 * readRequestCount, summed over the table's regions), read over JMX after attaching to the process.
 * A Get reads one row; a scan of hbase:meta for a region location reads a few.
 *
 * <p>Usage: java TableReads.java PID ; prints one JSON object, {"namespace:table": rows, ...}.
 */
public class TableReads {
  private static final Pattern READS =
      Pattern.compile("Namespace_(.+)_table_(.+)_region_[0-9a-f]+_metric_readRequestCount");

  public static void main(String[] args) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(args[0]);
    String address;
    try {
      address = vm.startLocalManagementAgent();
    } finally {
      vm.detach();
    }
    try (JMXConnector connector = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
      MBeanServerConnection jmx = connector.getMBeanServerConnection();
      ObjectName regions = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Regions");
      Map<String, Long> reads = new TreeMap<>();
      for (MBeanAttributeInfo info : jmx.getMBeanInfo(regions).getAttributes()) {
        Matcher m = READS.matcher(info.getName());
        if (m.matches()) {
          long count = ((Number) jmx.getAttribute(regions, info.getName())).longValue();
          reads.merge(m.group(1) + ":" + m.group(2), count, Long::sum);
        }
      }
      System.out.println(
          reads.entrySet().stream()
              .map(e -> "\"" + e.getKey() + "\": " + e.getValue())
              .collect(Collectors.joining(", ", "{", "}")));
    }
  }
}
