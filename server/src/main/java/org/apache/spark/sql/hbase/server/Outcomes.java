// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * The values a predicate may still take on a row still being read: a set of {@link
 * RowPredicate#FALSE}, {@link RowPredicate#TRUE} and {@link RowPredicate#UNKNOWN}, one bit each. A
 * set, not a single "pending" value, because a row is left out whatever FALSE or UNKNOWN it ends
 * at: {@code a = 1 AND b = 2} with {@code a} NULL cannot match, whatever {@code b} holds.
 *
 * <p>Children are combined as if independent, so a set may hold a value the row can no longer reach
 * ({@code x IS NULL OR x IS NOT NULL} before {@code x} comes), never miss one it can.
 */
final class Outcomes {
  static final int FALSE = 1 << RowPredicate.FALSE;
  static final int TRUE = 1 << RowPredicate.TRUE;
  static final int UNKNOWN = 1 << RowPredicate.UNKNOWN;
  static final int ANY = FALSE | TRUE | UNKNOWN;

  private Outcomes() {}

  /** The set holding just {@code value}, one of FALSE, TRUE and UNKNOWN. */
  static int of(byte value) {
    return 1 << value;
  }

  /** Every value {@code x AND y} takes, for x in {@code a} and y in {@code b}. */
  static int and(int a, int b) {
    int result = 0;
    if (((a | b) & FALSE) != 0) result |= FALSE;
    if ((a & b & TRUE) != 0) result |= TRUE;
    int notFalse = TRUE | UNKNOWN;
    if (((a & UNKNOWN) != 0 && (b & notFalse) != 0)
        || ((b & UNKNOWN) != 0 && (a & notFalse) != 0)) {
      result |= UNKNOWN;
    }
    return result;
  }

  /** Every value {@code x OR y} takes: De Morgan's law holds in three-valued logic too. */
  static int or(int a, int b) {
    return not(and(not(a), not(b)));
  }

  /** Every value {@code NOT x} takes: TRUE and FALSE swap, UNKNOWN stays. */
  static int not(int a) {
    return (a & UNKNOWN) | ((a & FALSE) != 0 ? TRUE : 0) | ((a & TRUE) != 0 ? FALSE : 0);
  }

  /** Whether a row with these outcomes may still match. */
  static boolean mayBeTrue(int outcomes) {
    return (outcomes & TRUE) != 0;
  }
}
