// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

/**
 * The variable-length numbers of packed cells and patches: unsigned LEB128, seven bits a byte, the
 * lowest first, with the high bit set on every byte but the last.
 */
final class UnsignedLeb128 {
  private UnsignedLeb128() {}

  /** How many bytes {@code value} (not negative) takes. */
  static int size(long value) {
    int bytes = 1;
    for (long rest = value >>> 7; rest != 0; rest >>>= 7) bytes++;
    return bytes;
  }

  /** Writes {@code value} (not negative) at {@code out[at]}, and returns where it ends. */
  static int write(byte[] out, int at, long value) {
    for (long rest = value; ; rest >>>= 7) {
      if (rest < 0x80) {
        out[at++] = (byte) rest;
        return at;
      }
      out[at++] = (byte) ((rest & 0x7F) | 0x80);
    }
  }

  /** Writes {@code value} (not negative) to {@code out}. */
  static void write(java.io.ByteArrayOutputStream out, long value) {
    byte[] bytes = new byte[size(value)];
    write(bytes, 0, value);
    out.write(bytes, 0, bytes.length);
  }

  /**
   * The number at {@code bytes[at[0]]}, before {@code limit} and of at most {@code maxBytes} bytes,
   * moving {@code at[0]} past it; -1 if it is cut or longer.
   */
  static long read(byte[] bytes, int[] at, int limit, int maxBytes) {
    long value = 0;
    for (int i = 0; i < maxBytes && at[0] < limit; i++) {
      byte b = bytes[at[0]++];
      value |= (long) (b & 0x7F) << (7 * i);
      if (b >= 0) return value;
    }
    return -1;
  }
}
