// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** One aggregate a region server computes per group: its kind and the value it reads. */
public final class AggregateFunction {
  /** Rows; no input. */
  public static final byte COUNT_ROWS = 1;

  /** Rows whose input is not NULL. */
  public static final byte COUNT = 2;

  /** Sum of the non-NULL inputs: LONG wraps and notes overflow, DOUBLE adds, DECIMAL is exact. */
  public static final byte SUM = 3;

  /** Least and greatest non-NULL input, by its order-preserving bytes. */
  public static final byte MIN = 4;

  public static final byte MAX = 5;

  final byte kind;
  final ValueExpression input; // null for COUNT_ROWS

  private AggregateFunction(byte kind, ValueExpression input) {
    if (kind < COUNT_ROWS || kind > MAX)
      throw new IllegalArgumentException("unknown aggregate " + kind);
    if ((kind == COUNT_ROWS) != (input == null))
      throw new IllegalArgumentException("only COUNT_ROWS has no input");
    if (kind == SUM && input.kind == ValueExpression.RAW)
      throw new IllegalArgumentException("SUM needs a number");
    if ((kind == MIN || kind == MAX) && input.kind != ValueExpression.RAW) {
      throw new IllegalArgumentException("MIN and MAX compare order-preserving bytes");
    }
    this.kind = kind;
    this.input = input;
  }

  public static AggregateFunction countRows() {
    return new AggregateFunction(COUNT_ROWS, null);
  }

  public static AggregateFunction of(byte kind, ValueExpression input) {
    return new AggregateFunction(kind, input);
  }

  int maxOperand() {
    return input == null ? -1 : input.maxOperand();
  }

  Accumulator newAccumulator() {
    return Accumulator.of(this);
  }

  void write(DataOutputStream out) throws IOException {
    out.writeByte(kind);
    out.writeBoolean(input != null);
    if (input != null) input.write(out);
  }

  static AggregateFunction read(DataInputStream in) throws IOException {
    byte kind = in.readByte();
    ValueExpression input = in.readBoolean() ? ValueExpression.read(in) : null;
    try {
      return new AggregateFunction(kind, input);
    } catch (IllegalArgumentException e) {
      throw new IOException("Corrupt aggregate: " + e.getMessage());
    }
  }

  @Override
  public String toString() {
    String name =
        kind == COUNT_ROWS
            ? "count_rows"
            : kind == COUNT ? "count" : kind == SUM ? "sum" : kind == MIN ? "min" : "max";
    return name + "(" + (input == null ? "" : input) + ")";
  }
}
