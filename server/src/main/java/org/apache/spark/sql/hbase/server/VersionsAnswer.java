package org.apache.spark.sql.hbase.server;

import java.io.IOException;
import java.util.List;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.regionserver.RegionScanner;
import org.apache.hadoop.hbase.regionserver.ScannerContext;

/**
 * A region scanner that returns the {@link ServerVersions} of this jar, once, instead of the
 * region's rows. Raw types for the reason {@link AggregatingRegionScanner} gives.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class VersionsAnswer implements RegionScanner {
  private final RegionScanner delegate;
  private boolean answered;

  VersionsAnswer(RegionScanner delegate) {
    this.delegate = delegate;
  }

  @Override
  public boolean nextRaw(List result, ScannerContext scannerContext) {
    if (!answered) {
      answered = true;
      byte[] start = delegate.getRegionInfo().getStartKey();
      // A cell needs a row: the region's first key, or the smallest key there is.
      result.add(ServerVersions.ofThisJar().toCell(start.length > 0 ? start : new byte[] {0}));
    }
    return false;
  }

  @Override
  public boolean nextRaw(List result) {
    return nextRaw(result, null);
  }

  @Override
  public boolean next(List result, ScannerContext scannerContext) {
    return nextRaw(result, scannerContext);
  }

  @Override
  public boolean next(List result) {
    return nextRaw(result, null);
  }

  @Override
  public RegionInfo getRegionInfo() {
    return delegate.getRegionInfo();
  }

  @Override
  public boolean isFilterDone() {
    return answered;
  }

  @Override
  public boolean reseek(byte[] row) throws IOException {
    throw new IOException("the answer of a region server's versions cannot reseek");
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
