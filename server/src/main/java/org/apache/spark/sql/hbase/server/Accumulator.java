// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * The running state of one aggregate in one group, and its place in an {@link AggregateBatch}.
 * Every state but a count starts with a flag: {@link #NONE} (no non-NULL input), {@link #VALUE}, or
 * {@link #OVERFLOW} (a LONG sum left the 64-bit range; it holds the wrapped value).
 */
abstract class Accumulator {
  static final byte NONE = 0;
  static final byte VALUE = 1;
  static final byte OVERFLOW = 2;

  abstract void update(RowPredicate.Row row);

  abstract void write(DataOutputStream out) throws IOException;

  static Accumulator of(AggregateFunction f) {
    switch (f.kind) {
      case AggregateFunction.COUNT_ROWS:
        return new Count(null);
      case AggregateFunction.COUNT:
        return new Count(f.input);
      case AggregateFunction.SUM:
        switch (f.input.kind) {
          case ValueExpression.LONG:
            return new LongSum(f.input);
          case ValueExpression.DOUBLE:
            return new DoubleSum(f.input);
          default:
            return new DecimalSum(f.input);
        }
      default:
        return new Extreme(f.input, f.kind == AggregateFunction.MAX);
    }
  }

  /**
   * The state {@link #write} wrote, as Long, Double, BigDecimal or byte[] (null for NONE), and its
   * flag.
   */
  static Object[] read(AggregateFunction f, DataInputStream in) throws IOException {
    if (f.kind == AggregateFunction.COUNT_ROWS || f.kind == AggregateFunction.COUNT) {
      return new Object[] {VALUE, in.readLong()};
    }
    byte flag = in.readByte();
    if (flag == NONE) return new Object[] {NONE, null};
    if (flag != VALUE && flag != OVERFLOW)
      throw new IOException("Corrupt aggregate state: flag " + flag);
    if (f.kind != AggregateFunction.SUM) return new Object[] {flag, Wire.readBytes(in)};
    switch (f.input.kind) {
      case ValueExpression.LONG:
        return new Object[] {flag, in.readLong()};
      case ValueExpression.DOUBLE:
        return new Object[] {flag, in.readDouble()};
      default:
        {
          int scale = in.readInt();
          return new Object[] {flag, new BigDecimal(new BigInteger(Wire.readBytes(in)), scale)};
        }
    }
  }

  private static final class Count extends Accumulator {
    private final ValueExpression input;
    private long count;

    Count(ValueExpression input) {
      this.input = input;
    }

    @Override
    void update(RowPredicate.Row row) {
      if (input == null || input.eval(row) != null) count++;
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeLong(count);
    }
  }

  private static final class LongSum extends Accumulator {
    private final ValueExpression input;
    private byte flag = NONE;
    private long sum;

    LongSum(ValueExpression input) {
      this.input = input;
    }

    @Override
    void update(RowPredicate.Row row) {
      Object v = input.eval(row);
      if (v == null) return;
      long x = (Long) v;
      long r = sum + x;
      // Overflow when both addends have the sign the result lacks.
      if (((sum ^ r) & (x ^ r)) < 0) flag = OVERFLOW;
      else if (flag == NONE) flag = VALUE;
      sum = r;
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(flag);
      if (flag != NONE) out.writeLong(sum);
    }
  }

  private static final class DoubleSum extends Accumulator {
    private final ValueExpression input;
    private boolean any;
    private double sum;

    DoubleSum(ValueExpression input) {
      this.input = input;
    }

    @Override
    void update(RowPredicate.Row row) {
      Object v = input.eval(row);
      if (v == null) return;
      any = true;
      sum += (Double) v;
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(any ? VALUE : NONE);
      if (any) out.writeDouble(sum);
    }
  }

  private static final class DecimalSum extends Accumulator {
    private final ValueExpression input;
    private BigDecimal sum;

    DecimalSum(ValueExpression input) {
      this.input = input;
    }

    @Override
    void update(RowPredicate.Row row) {
      Object v = input.eval(row);
      if (v == null) return;
      sum = sum == null ? (BigDecimal) v : sum.add((BigDecimal) v);
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(sum == null ? NONE : VALUE);
      if (sum != null) {
        out.writeInt(sum.scale());
        Wire.writeBytes(out, sum.unscaledValue().toByteArray());
      }
    }
  }

  /** MIN or MAX; among equal values the first one seen stays, as in Spark. */
  private static final class Extreme extends Accumulator {
    private final ValueExpression input;
    private final boolean max;
    private byte[] best;

    Extreme(ValueExpression input, boolean max) {
      this.input = input;
      this.max = max;
    }

    @Override
    void update(RowPredicate.Row row) {
      byte[] v = (byte[]) input.eval(row);
      if (v == null) return;
      if (best == null) best = v;
      else {
        int c = Bytes.compareTo(v, best);
        if (max ? c > 0 : c < 0) best = v;
      }
    }

    @Override
    void write(DataOutputStream out) throws IOException {
      out.writeByte(best == null ? NONE : VALUE);
      if (best != null) Wire.writeBytes(out, best);
    }
  }
}
