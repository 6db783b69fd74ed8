// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import org.apache.hadoop.hbase.util.Bytes;

/**
 * Walks a forward scan through sorted, disjoint key boxes: says of each row key whether it is in a
 * box, and if not, which key to seek to next. It keeps its place, so each call costs about one box.
 */
public final class KeySkipper {
  private final KeyLayout layout;
  private final KeyBox[] boxes;
  private int box;

  public KeySkipper(KeyLayout layout, KeyBox[] boxes) {
    for (KeyBox b : boxes) {
      if (b.dimensions() != layout.dimensions()) {
        throw new IllegalArgumentException(
            "a box has " + b.dimensions() + " dimensions, the key " + layout.dimensions());
      }
    }
    this.layout = layout;
    this.boxes = boxes;
  }

  /** Whether no key at or after the last one seen can match. */
  public boolean exhausted() {
    return box >= boxes.length;
  }

  /**
   * {@code null} when the key is in a box; otherwise the least key above it that may be, or an
   * empty array when none is (then {@link #exhausted()} holds).
   */
  public byte[] seekFor(byte[] key, int offset, int length) {
    while (box < boxes.length) {
      KeyBox b = boxes[box];
      if (b.rowStop.length > 0
          && Bytes.compareTo(key, offset, length, b.rowStop, 0, b.rowStop.length) >= 0) {
        box++;
        continue;
      }
      if (Bytes.compareTo(key, offset, length, b.rowStart, 0, b.rowStart.length) < 0)
        return b.rowStart;
      byte[] next = b.seek(layout, key, offset, length);
      if (next == KeyBox.MATCH) return null;
      if (next != null && (b.rowStop.length == 0 || Bytes.compareTo(next, b.rowStop) < 0))
        return next;
      box++;
    }
    return new byte[0];
  }

  KeyLayout layout() {
    return layout;
  }
}
