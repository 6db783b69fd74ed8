// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.util.List;
import org.apache.hadoop.hbase.regionserver.RegionScanner;

/**
 * A region scanner that returns the {@link ServerVersions} of this jar, once, instead of the
 * region's rows.
 */
@SuppressWarnings({"rawtypes", "unchecked"})
final class VersionsAnswer extends AnsweringRegionScanner {
  private boolean answered;

  VersionsAnswer(RegionScanner delegate) {
    super(delegate);
  }

  @Override
  protected boolean answer(List result) {
    if (!answered) {
      answered = true;
      byte[] start = delegate.getRegionInfo().getStartKey();
      // A cell needs a row: the region's first key, or the smallest key there is.
      result.add(ServerVersions.ofThisJar().toCell(start.length > 0 ? start : new byte[] {0}));
    }
    return false;
  }

  @Override
  public boolean isFilterDone() {
    return answered;
  }
}
