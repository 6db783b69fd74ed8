// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.util.Arrays;
import java.util.function.IntFunction;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The order of a row's cells: by family, then qualifier. A row's cells arrive in it, so columns
 * sorted the same way are found in one pass over the row. The region server and Spark's row decoder
 * both rely on it.
 */
public final class ColumnOrder {
  private ColumnOrder() {}

  /** How the column sorts against the cell's column, as unsigned bytes. */
  public static int compare(byte[] family, byte[] qualifier, Cell cell) {
    int familyStart = cell.getFamilyOffset();
    int byFamily =
        Arrays.compareUnsigned(
            family,
            0,
            family.length,
            cell.getFamilyArray(),
            familyStart,
            familyStart + cell.getFamilyLength());
    if (byFamily != 0) return byFamily;
    int qualifierStart = cell.getQualifierOffset();
    return Arrays.compareUnsigned(
        qualifier,
        0,
        qualifier.length,
        cell.getQualifierArray(),
        qualifierStart,
        qualifierStart + cell.getQualifierLength());
  }

  /** The given indexes, ordered by the column each names. */
  public static int[] sort(
      int[] indexes, IntFunction<byte[]> family, IntFunction<byte[]> qualifier) {
    return Arrays.stream(indexes)
        .boxed()
        .sorted(
            (a, b) -> {
              int byFamily = Bytes.compareTo(family.apply(a), family.apply(b));
              return byFamily != 0
                  ? byFamily
                  : Bytes.compareTo(qualifier.apply(a), qualifier.apply(b));
            })
        .mapToInt(Integer::intValue)
        .toArray();
  }
}
