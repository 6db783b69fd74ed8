// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;

/**
 * The baseline of the aggregate benchmark: a plain HBase client reading every cell of a table, one
 * scan per region as Spark reads it, with the same scanner caching, on `threads` threads at a time.
 *
 * <p>Usage: java -cp <HBase conf dir>:<plugin assembly jar>:<Spark's jars>/* RawScan.java TABLE
 * CACHING THREADS REPEAT
 *
 * <p>One untimed run warms the JVM and the connection up; then each of REPEAT runs prints one line
 * {"rows": R, "cells": C, "seconds": S}.
 */
public class RawScan {
  public static void main(String[] args) throws Exception {
    TableName table = TableName.valueOf(args[0]);
    int caching = Integer.parseInt(args[1]);
    int threads = Integer.parseInt(args[2]);
    int repeat = Integer.parseInt(args[3]);
    Configuration conf = HBaseConfiguration.create(); // hbase-site.xml comes from the classpath
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Connection connection = ConnectionFactory.createConnection(conf)) {
      List<RegionInfo> regions;
      try (Admin admin = connection.getAdmin()) {
        regions = admin.getRegions(table);
      }
      for (int run = 0; run <= repeat; run++) {
        long start = System.nanoTime();
        List<Future<long[]>> counts = new ArrayList<>();
        for (RegionInfo region : regions) {
          counts.add(pool.submit(() -> scanRegion(connection, table, region, caching)));
        }
        long rows = 0, cells = 0;
        for (Future<long[]> count : counts) {
          long[] region = count.get();
          rows += region[0];
          cells += region[1];
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (run > 0) {
          System.out.printf(
              "{\"rows\": %d, \"cells\": %d, \"seconds\": %.4f}%n", rows, cells, seconds);
        }
      }
    } finally {
      pool.shutdown();
    }
  }

  /** Rows and cells of one region, every cell read as the client hands it over. */
  private static long[] scanRegion(
      Connection connection, TableName name, RegionInfo region, int caching) throws Exception {
    Scan scan =
        new Scan()
            .withStartRow(region.getStartKey())
            .withStopRow(region.getEndKey())
            .setCaching(caching);
    long rows = 0, cells = 0;
    try (Table table = connection.getTable(name);
        ResultScanner scanner = table.getScanner(scan)) {
      for (Result result : scanner) {
        rows++;
        cells += result.rawCells().length;
      }
    }
    return new long[] {rows, cells};
  }
}
