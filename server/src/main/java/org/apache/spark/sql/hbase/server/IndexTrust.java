// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import org.apache.hadoop.hbase.client.Put;

/**
 * Where a global index cannot be trusted: the data key ranges that a bulk load changed without
 * changing the index (a bulk load bypasses every write hook, so the observer cannot maintain the
 * index for it). Each index table holds them in one row, {@link #ROW}, whose key no index row can
 * have (an index row starts with 0x00 or 0x01), one cell per data region: the region's start key as
 * the qualifier, its end key as the value. A query reads that region of the data table in full
 * instead of trusting the index there, until CHECK INDEX finds the index exact or repairs it.
 *
 * <p>A load that does maintain the indexes (our LOAD DATA) names its files with {@link #fileTag} of
 * the indexes it maintained; any other file, or one that names another set of indexes, marks.
 */
public final class IndexTrust {
  /** The row of the marks, after every index row. */
  public static final byte[] ROW = "\u00ffuntrusted".getBytes(StandardCharsets.ISO_8859_1);

  /**
   * The row of the LOAD DATAs whose index rows no CHECK INDEX has found exact since: a cell each,
   * the load's timestamp as its qualifier. A load's index rows are right unless another client
   * wrote the same rows while it ran, so a read that would trust an index row without its data row
   * checks those of these loads against their data.
   */
  public static final byte[] LOADS_ROW = "\u00ffloads".getBytes(StandardCharsets.ISO_8859_1);

  /** Whether {@code row} is one of the marks' rows, which are no index row. */
  public static boolean isMarks(byte[] row) {
    return row.length > 0 && row[0] == (byte) 0xff;
  }

  /** What precedes the tag in the name of a file whose load maintained the indexes. */
  public static final String FILE_TAG_PREFIX = "-indexes-";

  private IndexTrust() {}

  /**
   * The mark of the data rows in [start, end) (an empty end: to the table's end), at {@code ts}.
   */
  public static Put untrusted(byte[] start, byte[] end, long ts) {
    return new Put(ROW, ts).addColumn(IndexSpec.STATUS_FAMILY, start, ts, end);
  }

  /**
   * The tag of a set of indexes in a file's name: a checksum of their tables' names, in order.
   * Names are compared as a set, so the order of the specs does not matter.
   */
  public static String fileTag(List<IndexSpec> specs) {
    List<String> tables = new ArrayList<>();
    for (IndexSpec spec : specs) tables.add(spec.indexTable);
    tables.sort(null);
    CRC32 crc = new CRC32();
    crc.update(String.join("\n", tables).getBytes(StandardCharsets.UTF_8));
    return String.format("%08x", crc.getValue());
  }

  /** The name of a file whose rows' index rows are loaded too, for the indexes of {@code tag}. */
  public static String fileName(String prefix, String tag) {
    return prefix + FILE_TAG_PREFIX + tag;
  }

  /**
   * Whether the file at {@code path} says its load maintained exactly the indexes of {@code tag}.
   */
  public static boolean maintains(String path, String tag) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return name.contains(FILE_TAG_PREFIX + tag);
  }
}
