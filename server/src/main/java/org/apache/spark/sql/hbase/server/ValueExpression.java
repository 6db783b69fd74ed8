package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A value an aggregate reads from a row: an operand, as its order-preserving bytes (RAW) or as
 * the number they encode (LONG for every integral type, DOUBLE for FLOAT and DOUBLE, DECIMAL
 * with its column's scale), possibly widened from LONG to DOUBLE as Spark casts. Evaluates to
 * byte[], Long, Double, BigDecimal, or null for NULL.
 */
public final class ValueExpression {
  public static final byte RAW = 0;
  public static final byte LONG = 1;
  public static final byte DOUBLE = 2;
  public static final byte DECIMAL = 3;

  static final byte OPERAND = 1;

  /** What the expression evaluates to. */
  final byte kind;
  private final byte stored;
  private final int operand;
  private final int scale;

  private ValueExpression(byte stored, byte kind, int operand, int scale) {
    if (stored < RAW || stored > DECIMAL) throw new IllegalArgumentException("unknown value kind " + stored);
    if (kind != stored && !(stored == LONG && kind == DOUBLE)) {
      throw new IllegalArgumentException("a value of kind " + stored + " cannot be read as kind " + kind);
    }
    if (operand < 0) throw new IllegalArgumentException("an operand number is not negative");
    this.stored = stored;
    this.kind = kind;
    this.operand = operand;
    this.scale = scale;
  }

  /** An operand read as {@code kind}; {@code scale} matters for DECIMAL only. */
  public static ValueExpression operand(int operand, byte kind, int scale) {
    return new ValueExpression(kind, kind, operand, scale);
  }

  /** An integral operand as a DOUBLE, as Spark's cast of a whole number to DOUBLE gives it. */
  public static ValueExpression integralAsDouble(int operand) {
    return new ValueExpression(LONG, DOUBLE, operand, 0);
  }

  int maxOperand() {
    return operand;
  }

  Object eval(RowPredicate.Row row) {
    byte[] bytes = row.value(operand);
    if (bytes == null) return null;
    switch (stored) {
      case RAW: return bytes;
      case LONG: return kind == DOUBLE ? (Object) (double) toLong(bytes) : (Object) toLong(bytes);
      case DOUBLE: return toDouble(bytes);
      default: return toDecimal(bytes, scale);
    }
  }

  /** An integral value of any width: big-endian with the sign bit flipped. */
  static long toLong(byte[] c) {
    long v = c[0] ^ 0x80;
    v = (byte) v; // sign-extend the flipped first byte
    for (int i = 1; i < c.length; i++) v = (v << 8) | (c[i] & 0xFF);
    return v;
  }

  /** Four bytes are a FLOAT, eight a DOUBLE, ordered as Spark orders them. */
  static double toDouble(byte[] c) {
    if (c.length == 4) {
      int bits = (int) bigEndian(c);
      return Float.intBitsToFloat(bits < 0 ? bits ^ Integer.MIN_VALUE : ~bits);
    }
    long bits = bigEndian(c);
    return Double.longBitsToDouble(bits < 0 ? bits ^ Long.MIN_VALUE : ~bits);
  }

  /** Eight bytes hold the unscaled value as a LONG does; sixteen, as flipped two's complement. */
  static BigDecimal toDecimal(byte[] c, int scale) {
    if (c.length == 8) return BigDecimal.valueOf(toLong(c), scale);
    byte[] twos = c.clone();
    twos[0] ^= (byte) 0x80;
    return new BigDecimal(new BigInteger(twos), scale);
  }

  private static long bigEndian(byte[] c) {
    long v = 0;
    for (byte b : c) v = (v << 8) | (b & 0xFF);
    return v;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeByte(OPERAND);
    out.writeByte(stored);
    out.writeByte(kind);
    out.writeInt(operand);
    out.writeInt(scale);
  }

  static ValueExpression read(DataInputStream in) throws IOException {
    byte node = in.readByte();
    if (node != OPERAND) throw new IOException("Corrupt value expression: node " + node);
    byte stored = in.readByte();
    byte kind = in.readByte();
    int operand = in.readInt();
    int scale = in.readInt();
    try {
      return new ValueExpression(stored, kind, operand, scale);
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt value expression: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    String[] names = {"", ":long", ":double", ":decimal(" + scale + ")"};
    return "#" + operand + names[stored] + (kind == stored ? "" : " as" + names[kind]);
  }
}
