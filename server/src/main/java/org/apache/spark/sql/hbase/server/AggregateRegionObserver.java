// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.Optional;
import org.apache.hadoop.hbase.CoprocessorEnvironment;
import org.apache.hadoop.hbase.DoNotRetryIOException;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.coprocessor.ObserverContext;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessorEnvironment;
import org.apache.hadoop.hbase.coprocessor.RegionObserver;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The region-server coprocessor of spark-hbase-sql: a scan that carries an {@link AggregateSpec}
 * returns partial groups ({@link AggregatingRegionScanner}) instead of rows, and one that asks for
 * {@link ServerVersions} gets them instead; one that carries a {@link TopNSpec} returns only its
 * region's top n rows ({@link TopNRegionScanner}). Any other scan is left alone. A spec of a wire
 * version this jar does not read leaves the scan alone too: the client then gets rows, which it
 * folds in itself, so a mismatch costs speed, never a result. A spec of a version it reads that
 * does not parse is refused with an error.
 *
 * <p>Load it with {@code hbase.coprocessor.user.region.classes} or on a table's descriptor.
 */
@SuppressWarnings("rawtypes")
public final class AggregateRegionObserver implements RegionCoprocessor, RegionObserver {
  private static final Logger LOG = LoggerFactory.getLogger(AggregateRegionObserver.class);

  private MemoryBudget budget;

  @Override
  public Optional<RegionObserver> getRegionObserver() {
    return Optional.of(this);
  }

  /**
   * The region server's budget for aggregations, shared by every region (see {@link MemoryBudget}).
   */
  @Override
  public void start(CoprocessorEnvironment env) {
    budget =
        MemoryBudget.ofServer(
            env.getConfiguration().getDouble(MemoryBudget.SHARE_KEY, MemoryBudget.DEFAULT_SHARE));
  }

  /** A table's metrics go with its last region here (see {@link DroppedTableMetrics}). */
  @Override
  public void postClose(ObserverContext c, boolean abortRequested) {
    if (!abortRequested) {
      DroppedTableMetrics.afterRegionClosed((RegionCoprocessorEnvironment) c.getEnvironment());
    }
  }

  private MemoryBudget budget() {
    return budget != null ? budget : MemoryBudget.ofServer(MemoryBudget.DEFAULT_SHARE);
  }

  /**
   * An aggregation reads its whole range: stream reads from the start. With positional reads HBase
   * switches over only between RPCs and, until then, stops every read of the aggregating scanner at
   * once, which would never end an RPC.
   */
  @Override
  public void preScannerOpen(ObserverContext c, Scan scan) {
    if (scan.getAttribute(AggregateSpec.ATTRIBUTE) != null
        || scan.getAttribute(TopNSpec.ATTRIBUTE) != null) scan.setReadType(Scan.ReadType.STREAM);
  }

  @Override
  public RegionScanner postScannerOpen(ObserverContext c, Scan scan, RegionScanner s)
      throws IOException {
    if (ServerVersions.asked(scan)) return new VersionsAnswer(s);
    byte[] topN = scan.getAttribute(TopNSpec.ATTRIBUTE);
    if (topN != null) {
      return answered(
          s, "top-n", () -> new TopNRegionScanner(s, TopNSpec.parseFrom(topN), budget()));
    }
    byte[] bytes = scan.getAttribute(AggregateSpec.ATTRIBUTE);
    if (bytes == null) return s;
    return answered(
        s,
        "aggregation",
        () -> new AggregatingRegionScanner(s, AggregateSpec.parseFrom(bytes), budget()));
  }

  private interface Answer {
    RegionScanner open() throws IOException;
  }

  /**
   * The scanner that answers the scan (`what`: a top-n, an aggregation). A spec of a version this
   * jar does not read leaves the scan alone: every row goes to the client, which takes its own
   * top-n or folds the rows into groups itself. Bytes of our version that do not parse are a bug or
   * an attack: refused, never answered with rows.
   */
  private static RegionScanner answered(RegionScanner s, String what, Answer answer)
      throws IOException {
    try {
      return answer.open();
    } catch (WireVersionRefused e) {
      LOG.warn(
          "Not answering a scan of {} with a {}: {}",
          s.getRegionInfo().getRegionNameAsString(),
          what,
          e.getMessage());
      return s;
    } catch (IOException | RuntimeException e) {
      String region = s.getRegionInfo().getRegionNameAsString();
      s.close(); // HBase forgets a scanner whose opening failed
      throw new DoNotRetryIOException(
          "Refused a spark-hbase-sql " + what + " of " + region + ": " + e.getMessage());
    }
  }
}
