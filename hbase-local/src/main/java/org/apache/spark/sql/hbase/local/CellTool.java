// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A tiny HBase client to check the embedded HBase without Spark: writes and reads one cell (column
 * {@code f:q}) through the plain HBase client API. It reads hbase-site.xml from the classpath, so
 * put the conf dir of the local HBase first on it.
 *
 * <pre>
 *   CellTool put &lt;table&gt; &lt;row&gt; &lt;value&gt;   creates the table (family f) if needed; prints OK
 *   CellTool get &lt;table&gt; &lt;row&gt;             prints the value, or MISSING
 * </pre>
 */
public final class CellTool {
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final byte[] QUALIFIER = Bytes.toBytes("q");

  private CellTool() {}

  public static void main(String[] args) throws Exception {
    boolean put = args.length == 4 && args[0].equals("put");
    boolean get = args.length == 3 && args[0].equals("get");
    if (!put && !get) {
      System.err.println("usage: CellTool put <table> <row> <value> | get <table> <row>");
      System.exit(1);
    }
    Configuration conf = HBaseConfiguration.create();
    TableName name = TableName.valueOf(args[1]);
    byte[] row = Bytes.toBytes(args[2]);
    try (Connection c = ConnectionFactory.createConnection(conf)) {
      if (put) {
        try (Admin admin = c.getAdmin()) {
          if (!admin.tableExists(name)) {
            admin.createTable(
                TableDescriptorBuilder.newBuilder(name)
                    .setColumnFamily(ColumnFamilyDescriptorBuilder.of(FAMILY))
                    .build());
          }
        }
        try (Table t = c.getTable(name)) {
          t.put(new Put(row).addColumn(FAMILY, QUALIFIER, Bytes.toBytes(args[3])));
        }
        System.out.println("OK");
      } else {
        try (Table t = c.getTable(name)) {
          byte[] v = t.get(new Get(row)).getValue(FAMILY, QUALIFIER);
          System.out.println(v == null ? "MISSING" : Bytes.toString(v));
        }
      }
    }
    System.out.flush();
    // The HBase client leaves non-daemon threads behind.
    System.exit(0);
  }
}
