// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** Byte layout helpers for what the client sends to region servers: lengths, then bytes. */
final class Wire {
  private Wire() {}

  static DataInputStream input(byte[] bytes) {
    return new DataInputStream(new ByteArrayInputStream(bytes));
  }

  static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  static byte[] readBytes(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new IOException("Corrupt payload: a byte string of length " + length);
    }
    byte[] bytes = new byte[length];
    in.readFully(bytes);
    return bytes;
  }

  interface Reader<T> {
    T read(DataInputStream in) throws IOException;
  }

  /**
   * What `reader` reads of a whole payload, `what` (e.g. "top-n") naming it in the error when its
   * bytes are corrupt: they end early, or hold a value out of range.
   */
  static <T> T parse(byte[] bytes, String what, Reader<T> reader) throws IOException {
    try {
      return reader.read(input(bytes));
    } catch (java.io.EOFException e) {
      throw new IOException("Corrupt " + what + ": its bytes end early", e);
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt " + what + ": " + e.getMessage(), e);
    }
  }

  /** Reads the version that starts a payload, refusing one this jar does not read. */
  static int readVersion(DataInputStream in, String what) throws IOException {
    int version = in.readInt();
    if (!ServerJar.reads(version)) throw new WireVersionRefused(what, version);
    return version;
  }

  /** Checks a version a client asks to write in. */
  static int checked(int version) {
    if (!ServerJar.reads(version)) {
      throw new IllegalArgumentException(
          "wire version "
              + version
              + " is not one of "
              + ServerJar.OLDEST_WIRE_VERSION
              + " to "
              + ServerJar.WIRE_VERSION);
    }
    return version;
  }

  interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  /**
   * A payload of wire version `version`: the version, then what `writer` writes (in that version's
   * layout).
   */
  static byte[] toBytes(int version, Writer writer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(checked(version));
      writer.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
  }
}
