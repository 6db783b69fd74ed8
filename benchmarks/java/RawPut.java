// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The baseline of the streaming benchmark: a plain HBase client writing ROWS rows of the
 * benchmark's shape (an INT key, an INT cell and a string cell, as the sink writes them) through
 * one BufferedMutator per thread, THREADS threads each writing its own share of the keys.
 *
 * <p>Usage: java -cp <HBase conf dir>:<plugin assembly jar>:<Spark's jars>/* RawPut.java TABLE ROWS
 * THREADS REPEAT
 *
 * <p>One untimed run warms the JVM and the connection up; then each of REPEAT runs prints one line
 * {"rows": R, "seconds": S}.
 */
public class RawPut {
  private static final byte[] FAMILY = Bytes.toBytes("f");
  private static final byte[] VAL = Bytes.toBytes("v");
  private static final byte[] LABEL = Bytes.toBytes("l");

  public static void main(String[] args) throws Exception {
    TableName table = TableName.valueOf(args[0]);
    long rows = Long.parseLong(args[1]);
    int threads = Integer.parseInt(args[2]);
    int repeat = Integer.parseInt(args[3]);
    try (Connection connection = ConnectionFactory.createConnection(HBaseConfiguration.create())) {
      for (int run = 0; run <= repeat; run++) {
        long start = System.nanoTime();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          long from = rows * t / threads;
          long to = rows * (t + 1) / threads;
          done.add(pool.submit(() -> write(connection, table, from, to)));
        }
        for (Future<?> f : done) f.get();
        pool.shutdown();
        double seconds = (System.nanoTime() - start) / 1e9;
        if (run > 0) System.out.println("{\"rows\": " + rows + ", \"seconds\": " + seconds + "}");
      }
    }
  }

  private static Void write(Connection connection, TableName table, long from, long to)
      throws Exception {
    try (BufferedMutator mutator = connection.getBufferedMutator(table)) {
      for (long id = from; id < to; id++) {
        // An INT key as an order-preserving binary key: big-endian with the sign bit flipped.
        byte[] key = Bytes.toBytes((int) id ^ Integer.MIN_VALUE);
        Put put = new Put(key);
        put.addColumn(FAMILY, VAL, Bytes.toBytes((int) (id * 7 % 100000)));
        put.addColumn(FAMILY, LABEL, ("label-" + id).getBytes(StandardCharsets.UTF_8));
        mutator.mutate(put);
      }
    }
    return null;
  }
}
