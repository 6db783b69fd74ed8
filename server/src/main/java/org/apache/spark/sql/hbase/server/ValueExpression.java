// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * A value an aggregate reads from a row, computed as Spark computes it: an operand, as its
 * order-preserving bytes (RAW) or as the number they encode (LONG for every integral type, DOUBLE
 * for FLOAT and DOUBLE, DECIMAL with its column's scale), a constant, or arithmetic and casts over
 * them. Evaluates to byte[], Long, Double, BigDecimal, or null for NULL. A result outside its type
 * is NULL, or, where Spark fails instead (ANSI mode), an {@link OutOfRange}.
 *
 * <p>Wire layout, a node byte first: OPERAND kind operand:int scale:int; CONSTANT kind, then a LONG
 * as long, a DOUBLE as double, a DECIMAL as scale:int and unscaled two's complement bytes;
 * ARITHMETIC op shape left right; NEGATE shape child; CAST shape child. A shape is kind width:int
 * precision:int scale:int failOnOverflow:boolean.
 */
public abstract class ValueExpression {
  public static final byte RAW = 0;
  public static final byte LONG = 1;
  public static final byte DOUBLE = 2;
  public static final byte DECIMAL = 3;

  public static final byte ADD = 1;
  public static final byte SUBTRACT = 2;
  public static final byte MULTIPLY = 3;

  static final byte OPERAND = 1;
  static final byte CONSTANT = 2;
  static final byte ARITHMETIC = 3;
  static final byte NEGATE = 4;
  static final byte CAST = 5;

  private static final int MAX_PRECISION = DecimalFit.MAX_PRECISION;
  // Spark multiplies decimals to one digit more than it can hold, cutting off the rest.
  private static final MathContext PRODUCT_CONTEXT =
      new MathContext(MAX_PRECISION + 1, RoundingMode.DOWN);
  private static final int MAX_DEPTH = 64;

  /** What the expression evaluates to. */
  final byte kind;

  private ValueExpression(byte kind) {
    if (kind < RAW || kind > DECIMAL)
      throw new IllegalArgumentException("unknown value kind " + kind);
    this.kind = kind;
  }

  /**
   * The value Spark would have failed on, with the function a user may call instead: a number
   * outside a DECIMAL type ({@code precision} and {@code scale}), or an integral overflow.
   */
  public static final class OutOfRange extends RuntimeException {
    /** For a DECIMAL, the value before it was fitted; null for an integral overflow. */
    public final BigDecimal value;

    public final int precision;
    public final int scale;

    /**
     * Spark's suggestion for an integral overflow: try_add, try_subtract, try_multiply, or empty.
     */
    public final String hint;

    OutOfRange(BigDecimal value, int precision, int scale) {
      super(value + " does not fit DECIMAL(" + precision + ", " + scale + ")", null, false, false);
      this.value = value;
      this.precision = precision;
      this.scale = scale;
      this.hint = "";
    }

    OutOfRange(String message, String hint) {
      super(message, null, false, false);
      this.value = null;
      this.precision = 0;
      this.scale = 0;
      this.hint = hint;
    }

    void write(DataOutputStream out) throws IOException {
      out.writeBoolean(value != null);
      if (value != null) {
        out.writeInt(value.scale());
        Wire.writeBytes(out, value.unscaledValue().toByteArray());
        out.writeInt(precision);
        out.writeInt(scale);
      } else {
        out.writeUTF(getMessage());
        out.writeUTF(hint);
      }
    }

    static OutOfRange read(DataInputStream in) throws IOException {
      if (in.readBoolean()) {
        int valueScale = in.readInt();
        BigDecimal value = new BigDecimal(new BigInteger(Wire.readBytes(in)), valueScale);
        return new OutOfRange(value, in.readInt(), in.readInt());
      }
      return new OutOfRange(in.readUTF(), in.readUTF());
    }
  }

  /** An operand read as {@code kind}; {@code scale} matters for DECIMAL only. */
  public static ValueExpression operand(int operand, byte kind, int scale) {
    return new Operand(kind, operand, scale);
  }

  /** A constant: a Long, Double or BigDecimal as {@code kind} says. */
  public static ValueExpression constant(byte kind, Object value) {
    return new Constant(kind, value);
  }

  /**
   * {@code left op right} of one kind: LONG in {@code width} bytes (4 or 8), wrapping, DOUBLE as
   * IEEE, DECIMAL exact and fitted to {@code precision} and {@code scale}.
   */
  public static ValueExpression arithmetic(
      byte op, ValueExpression left, ValueExpression right, Shape shape) {
    return new Arithmetic(op, left, right, shape);
  }

  public static ValueExpression negate(ValueExpression child, Shape shape) {
    return new Negate(child, shape);
  }

  /** A LONG or DECIMAL as a DOUBLE, or a LONG or DECIMAL as a DECIMAL of {@code shape}. */
  public static ValueExpression cast(ValueExpression child, Shape shape) {
    return new Cast(child, shape);
  }

  /**
   * The type a computed value has and what happens outside it: a LONG of {@code width} bytes, a
   * DOUBLE, or a DECIMAL of {@code precision} and {@code scale}; with {@code failOnOverflow}
   * (Spark's ANSI mode) an {@link OutOfRange}, otherwise a wrapped LONG or a NULL DECIMAL.
   */
  public static final class Shape {
    final byte kind;
    final int width;
    final int precision;
    final int scale;
    final boolean failOnOverflow;

    private Shape(byte kind, int width, int precision, int scale, boolean failOnOverflow) {
      if (kind == LONG && width != 4 && width != 8)
        throw new IllegalArgumentException("a LONG is 4 or 8 bytes wide, not " + width);
      if (kind == DECIMAL
          && (precision < 1 || precision > MAX_PRECISION || scale < 0 || scale > precision)) {
        throw new IllegalArgumentException("no DECIMAL(" + precision + ", " + scale + ")");
      }
      if (kind == RAW || kind < RAW || kind > DECIMAL)
        throw new IllegalArgumentException("a computed value is a number, not kind " + kind);
      this.kind = kind;
      this.width = width;
      this.precision = precision;
      this.scale = scale;
      this.failOnOverflow = failOnOverflow;
    }

    public static Shape integral(int width, boolean failOnOverflow) {
      return new Shape(LONG, width, 0, 0, failOnOverflow);
    }

    public static Shape floating() {
      return new Shape(DOUBLE, 0, 0, 0, false);
    }

    public static Shape decimal(int precision, int scale, boolean failOnOverflow) {
      return new Shape(DECIMAL, 0, precision, scale, failOnOverflow);
    }

    /**
     * {@code v} rounded half up to the scale, or NULL (or a failure) when it has too many digits,
     * as Spark's toPrecision.
     */
    BigDecimal fit(BigDecimal v) {
      BigDecimal fitted = DecimalFit.fit(v, precision, scale);
      return fitted == null ? outOfRange(v) : fitted;
    }

    private BigDecimal outOfRange(BigDecimal v) {
      if (failOnOverflow) throw new OutOfRange(v, precision, scale);
      return null;
    }

    /**
     * An exact integral result as Spark's type of {@code width} bytes holds it, or a failure under
     * ANSI.
     */
    long fit(long exact, boolean overflowed, String hint) {
      boolean fits = !overflowed && (width == 8 || exact == (int) exact);
      if (!fits && failOnOverflow)
        throw new OutOfRange(width == 8 ? "long overflow" : "integer overflow", hint);
      return width == 8 ? exact : (int) exact;
    }

    void write(DataOutputStream out) throws IOException {
      out.writeByte(kind);
      out.writeInt(width);
      out.writeInt(precision);
      out.writeInt(scale);
      out.writeBoolean(failOnOverflow);
    }

    static Shape read(DataInputStream in) throws IOException {
      return new Shape(in.readByte(), in.readInt(), in.readInt(), in.readInt(), in.readBoolean());
    }

    @Override
    public String toString() {
      String type =
          kind == LONG
              ? (width == 8 ? "long" : "int")
              : kind == DOUBLE ? "double" : "decimal(" + precision + "," + scale + ")";
      return type + (failOnOverflow ? " ansi" : "");
    }
  }

  abstract int maxOperand();

  abstract Object eval(RowPredicate.Row row);

  abstract void write(DataOutputStream out) throws IOException;

  static ValueExpression read(DataInputStream in) throws IOException {
    return read(in, 0);
  }

  private static ValueExpression read(DataInputStream in, int depth) throws IOException {
    if (depth > MAX_DEPTH)
      throw new IOException("Corrupt value expression: nested deeper than " + MAX_DEPTH);
    byte node = in.readByte();
    try {
      switch (node) {
        case OPERAND:
          return new Operand(in.readByte(), in.readInt(), in.readInt());
        case CONSTANT:
          return Constant.read(in);
        case ARITHMETIC:
          {
            byte op = in.readByte();
            Shape shape = Shape.read(in);
            return new Arithmetic(op, read(in, depth + 1), read(in, depth + 1), shape);
          }
        case NEGATE:
          {
            Shape shape = Shape.read(in);
            return new Negate(read(in, depth + 1), shape);
          }
        case CAST:
          {
            Shape shape = Shape.read(in);
            return new Cast(read(in, depth + 1), shape);
          }
        default:
          throw new IOException("Corrupt value expression: node " + node);
      }
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt value expression: " + e.getMessage());
    }
  }

  private static final class Operand extends ValueExpression {
    private final int operand;
    private final int scale;

    Operand(byte kind, int operand, int scale) {
      super(kind);
      if (operand < 0) throw new IllegalArgumentException("an operand number is not negative");
      if (kind == DECIMAL && (scale < 0 || scale > MAX_PRECISION))
        throw new IllegalArgumentException("no DECIMAL scale " + scale);
      this.operand = operand;
      this.scale = scale;
    }

    @Override
    int maxOperand() {
      return operand;
    }

    @Override
    Object eval(RowPredicate.Row row) {
      byte[] bytes = row.value(operand);
      if (bytes == null) return null;
      if (!readable(kind, bytes.length)) {
        // Only a corrupt spec reads an operand as a number of another width.
        throw new IllegalStateException(
            "operand "
                + operand
                + " holds "
                + bytes.length
                + " bytes, not a value of kind "
                + kind);
      }
      switch (kind) {
        case RAW:
          return bytes;
        case LONG:
          return toLong(bytes);
        case DOUBLE:
          return toDouble(bytes);
        default:
          return toDecimal(bytes, scale);
      }
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(OPERAND);
      out.writeByte(kind);
      out.writeInt(operand);
      out.writeInt(scale);
    }

    @Override
    public String toString() {
      String[] names = {"", ":long", ":double", ":decimal(" + scale + ")"};
      return "#" + operand + names[kind];
    }
  }

  private static final class Constant extends ValueExpression {
    private final Object value;

    Constant(byte kind, Object value) {
      super(kind);
      boolean matches =
          kind == LONG
              ? value instanceof Long
              : kind == DOUBLE
                  ? value instanceof Double
                  : kind == DECIMAL && value instanceof BigDecimal;
      if (!matches)
        throw new IllegalArgumentException("a constant of kind " + kind + " cannot be " + value);
      this.value = value;
    }

    @Override
    int maxOperand() {
      return -1;
    }

    @Override
    Object eval(RowPredicate.Row row) {
      return value;
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(CONSTANT);
      out.writeByte(kind);
      switch (kind) {
        case LONG:
          out.writeLong((Long) value);
          break;
        case DOUBLE:
          out.writeDouble((Double) value);
          break;
        default:
          out.writeInt(((BigDecimal) value).scale());
          Wire.writeBytes(out, ((BigDecimal) value).unscaledValue().toByteArray());
      }
    }

    static Constant read(DataInputStream in) throws IOException {
      byte kind = in.readByte();
      switch (kind) {
        case LONG:
          return new Constant(kind, in.readLong());
        case DOUBLE:
          return new Constant(kind, in.readDouble());
        case DECIMAL:
          {
            int scale = in.readInt();
            return new Constant(kind, new BigDecimal(new BigInteger(Wire.readBytes(in)), scale));
          }
        default:
          throw new IOException("Corrupt value expression: a constant of kind " + kind);
      }
    }

    @Override
    public String toString() {
      return String.valueOf(value);
    }
  }

  private static final class Arithmetic extends ValueExpression {
    private final byte op;
    private final ValueExpression left;
    private final ValueExpression right;
    private final Shape shape;

    Arithmetic(byte op, ValueExpression left, ValueExpression right, Shape shape) {
      super(shape.kind);
      if (shape.kind == RAW) throw new IllegalArgumentException("no arithmetic on raw bytes");
      if (op < ADD || op > MULTIPLY) throw new IllegalArgumentException("unknown arithmetic " + op);
      if (left.kind != shape.kind || right.kind != shape.kind) {
        throw new IllegalArgumentException(
            "arithmetic of kind " + shape.kind + " over kinds " + left.kind + " and " + right.kind);
      }
      this.op = op;
      this.left = left;
      this.right = right;
      this.shape = shape;
    }

    @Override
    int maxOperand() {
      return Math.max(left.maxOperand(), right.maxOperand());
    }

    @Override
    Object eval(RowPredicate.Row row) {
      Object l = left.eval(row);
      if (l == null) return null;
      Object r = right.eval(row);
      if (r == null) return null;
      switch (kind) {
        case LONG:
          return longResult((Long) l, (Long) r);
        case DOUBLE:
          {
            double a = (Double) l, b = (Double) r;
            return op == ADD ? a + b : op == SUBTRACT ? a - b : a * b;
          }
        default:
          {
            BigDecimal a = (BigDecimal) l, b = (BigDecimal) r;
            return shape.fit(
                op == ADD
                    ? a.add(b)
                    : op == SUBTRACT ? a.subtract(b) : a.multiply(b, PRODUCT_CONTEXT));
          }
      }
    }

    private long longResult(long a, long b) {
      long exact;
      boolean overflowed = false;
      try {
        exact =
            op == ADD
                ? Math.addExact(a, b)
                : op == SUBTRACT ? Math.subtractExact(a, b) : Math.multiplyExact(a, b);
      } catch (ArithmeticException e) {
        exact = op == ADD ? a + b : op == SUBTRACT ? a - b : a * b;
        overflowed = true;
      }
      return shape.fit(
          exact,
          overflowed,
          op == ADD ? "try_add" : op == SUBTRACT ? "try_subtract" : "try_multiply");
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(ARITHMETIC);
      out.writeByte(op);
      shape.write(out);
      left.write(out);
      right.write(out);
    }

    @Override
    public String toString() {
      return "("
          + left
          + (op == ADD ? " + " : op == SUBTRACT ? " - " : " * ")
          + right
          + "):"
          + shape;
    }
  }

  /** A function of one value, NULL for NULL. */
  private abstract static class Unary extends ValueExpression {
    private final byte node;
    final ValueExpression child;
    final Shape shape;

    Unary(byte node, ValueExpression child, Shape shape) {
      super(shape.kind);
      this.node = node;
      this.child = child;
      this.shape = shape;
    }

    abstract Object apply(Object value);

    @Override
    final int maxOperand() {
      return child.maxOperand();
    }

    @Override
    final Object eval(RowPredicate.Row row) {
      Object v = child.eval(row);
      return v == null ? null : apply(v);
    }

    @Override
    final void write(DataOutputStream out) throws IOException {
      out.writeByte(node);
      shape.write(out);
      child.write(out);
    }
  }

  private static final class Negate extends Unary {
    Negate(ValueExpression child, Shape shape) {
      super(NEGATE, child, shape);
      if (shape.kind == RAW) throw new IllegalArgumentException("no negation of raw bytes");
      if (child.kind != shape.kind)
        throw new IllegalArgumentException(
            "negation of kind " + shape.kind + " over kind " + child.kind);
    }

    @Override
    Object apply(Object v) {
      switch (kind) {
        case LONG:
          {
            long x = (Long) v;
            return shape.fit(-x, x == Long.MIN_VALUE, "");
          }
        case DOUBLE:
          return -(Double) v;
        default:
          return ((BigDecimal) v).negate();
      }
    }

    @Override
    public String toString() {
      return "-" + child;
    }
  }

  private static final class Cast extends Unary {
    Cast(ValueExpression child, Shape shape) {
      super(CAST, child, shape);
      if (shape.kind == LONG
          || shape.kind == RAW
          || (child.kind != LONG && child.kind != DECIMAL)) {
        throw new IllegalArgumentException(
            "no cast from kind " + child.kind + " to kind " + shape.kind);
      }
    }

    @Override
    Object apply(Object v) {
      if (kind == DOUBLE)
        return child.kind == LONG ? (double) (Long) v : ((BigDecimal) v).doubleValue();
      return shape.fit(child.kind == LONG ? BigDecimal.valueOf((Long) v) : (BigDecimal) v);
    }

    @Override
    public String toString() {
      return "cast(" + child + " as " + shape + ")";
    }
  }

  /**
   * Whether {@code length} bytes hold a value of {@code kind}: see toLong, toDouble and toDecimal.
   */
  private static boolean readable(byte kind, int length) {
    switch (kind) {
      case LONG:
        return length >= 1 && length <= 8;
      case DOUBLE:
        return length == 4 || length == 8;
      case DECIMAL:
        return length == 8 || length == 16;
      default:
        return true;
    }
  }

  /** An integral value of any width, as {@link OrderedBytes} holds it. */
  static long toLong(byte[] c) {
    return OrderedBytes.getIntegral(c, 0, c.length);
  }

  /** Four bytes are a FLOAT, eight a DOUBLE, as {@link OrderedBytes} holds them. */
  static double toDouble(byte[] c) {
    return c.length == 4 ? OrderedBytes.getFloat(c, 0) : OrderedBytes.getDouble(c, 0);
  }

  /** Eight bytes hold the unscaled value as a LONG does; sixteen, a wide decimal's. */
  static BigDecimal toDecimal(byte[] c, int scale) {
    return OrderedBytes.getDecimal(c, 0, c.length, scale);
  }
}
