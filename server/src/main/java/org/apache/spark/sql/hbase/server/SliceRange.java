// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * The slices [start, stop) of one key dimension, compared as unsigned bytes. An empty start or stop
 * is unbounded. {@code startIsValue} says that start is a whole slice, the encoding of a value, so
 * a seek key may go on with the next dimension's bounds after it.
 */
public final class SliceRange {
  public static final SliceRange ALL = new SliceRange(new byte[0], false, new byte[0]);

  final byte[] start;
  final boolean startIsValue;
  final byte[] stop;

  public SliceRange(byte[] start, boolean startIsValue, byte[] stop) {
    this.start = start;
    this.startIsValue = startIsValue && start.length > 0;
    this.stop = stop;
  }

  public byte[] start() {
    return start.clone();
  }

  public byte[] stop() {
    return stop.clone();
  }

  public boolean startIsValue() {
    return startIsValue;
  }

  boolean isAll() {
    return start.length == 0 && stop.length == 0;
  }

  void write(DataOutputStream out) throws IOException {
    Wire.writeBytes(out, start);
    out.writeBoolean(startIsValue);
    Wire.writeBytes(out, stop);
  }

  static SliceRange read(DataInputStream in) throws IOException {
    byte[] start = Wire.readBytes(in);
    boolean startIsValue = in.readBoolean();
    return new SliceRange(start, startIsValue, Wire.readBytes(in));
  }
}
