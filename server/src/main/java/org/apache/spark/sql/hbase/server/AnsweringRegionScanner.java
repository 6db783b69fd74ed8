// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/**
 * A region scanner that answers a scan with cells of its own making instead of the region's rows,
 * reading them (if at all) from the region's scanner it wraps: subclasses say what each call
 * returns in {@link #answer}. It cannot reseek, and closing it closes the region's scanner.
 *
 * <p>Parameters are raw types on purpose: HBase 3 declares {@code List<? super ExtendedCell>},
 * HBase 2 {@code List<Cell>}, and the erasure is the same.
 */
@SuppressWarnings({"rawtypes"})
abstract class AnsweringRegionScanner implements RegionScanner {
  protected final RegionScanner delegate;

  AnsweringRegionScanner(RegionScanner delegate) {
    this.delegate = delegate;
  }

  /** Adds this call's cells to {@code result}; false once nothing more follows. */
  protected abstract boolean answer(List result) throws IOException;

  /**
   * {@link #answer(List)} for a call of HBase's that carries its {@code context}, whose metrics a
   * subclass may count its reads in.
   */
  protected boolean answer(List result, ScannerContext context) throws IOException {
    return answer(result);
  }

  @Override
  public final boolean nextRaw(List result, ScannerContext scannerContext) throws IOException {
    return answer(result, scannerContext);
  }

  @Override
  public final boolean nextRaw(List result) throws IOException {
    return answer(result);
  }

  @Override
  public final boolean next(List result, ScannerContext scannerContext) throws IOException {
    return answer(result, scannerContext);
  }

  @Override
  public final boolean next(List result) throws IOException {
    return answer(result);
  }

  @Override
  public RegionInfo getRegionInfo() {
    return delegate.getRegionInfo();
  }

  @Override
  public boolean reseek(byte[] row) throws IOException {
    throw new IOException(
        getClass().getSimpleName() + " answers a scan with cells of its own: it cannot reseek");
  }

  @Override
  public long getMaxResultSize() {
    return delegate.getMaxResultSize();
  }

  @Override
  public long getMvccReadPoint() {
    return delegate.getMvccReadPoint();
  }

  @Override
  public int getBatch() {
    return delegate.getBatch();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
