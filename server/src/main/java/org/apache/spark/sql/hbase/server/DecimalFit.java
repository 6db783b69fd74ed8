// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * A decimal brought to a column's DECIMAL(precision, scale): rounded half up to the scale, or no
 * value when it has too many digits, as Spark's {@code Decimal.changePrecision} decides. The one
 * copy of that rule outside Spark: cells read in region servers and computed values use it.
 */
public final class DecimalFit {
  public static final int MAX_PRECISION = 38;

  private DecimalFit() {}

  /** {@code v} at {@code scale}, or null when it does not fit DECIMAL(precision, scale). */
  public static BigDecimal fit(BigDecimal v, int precision, int scale) {
    // Decided from the digits first: far from the scale, setScale would compute a huge power of
    // ten (a text cell read as a decimal can have a scale near 10^9).
    if (v.signum() == 0) return BigDecimal.ZERO.setScale(scale);
    long magnitude = (long) v.precision() - v.scale(); // |v| < 10^magnitude
    if (magnitude > precision - scale) return null;
    if (magnitude < -scale - 1L) return BigDecimal.ZERO.setScale(scale); // under half a unit
    BigDecimal fitted = v.setScale(scale, RoundingMode.HALF_UP);
    return fitted.precision() > precision && fitted.signum() != 0 ? null : fitted;
  }
}
