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

  /** Bytes of another wire version: a deployment mismatch, not corruption. */
  static final class OtherVersion extends IOException {
    OtherVersion(String message) {
      super(message);
    }
  }

  static void checkVersion(DataInputStream in, String what) throws IOException {
    int version = in.readInt();
    if (version != ServerJar.WIRE_VERSION) {
      throw new OtherVersion(what + " was written with wire version " + version + ", but this region server's "
          + "spark-hbase-sql server jar (" + ServerJar.buildVersion() + ") reads version " + ServerJar.WIRE_VERSION
          + "; deploy the server jar that matches the client");
    }
  }

  interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  static byte[] toBytes(Writer writer) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeInt(ServerJar.WIRE_VERSION);
      writer.write(out);
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
  }
}
