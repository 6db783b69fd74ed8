// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * A predicate over one row, evaluated in the region server with SQL's three-valued logic. Its
 * operands are numbered values of the row (a key dimension or a cell, see {@link Operand}) as
 * order-preserving bytes; NULL is a missing value. Literals come encoded the same way, so every
 * comparison is an unsigned byte comparison.
 */
public final class RowPredicate {
  public static final byte FALSE = 0;
  public static final byte TRUE = 1;
  public static final byte UNKNOWN = 2;

  static final byte AND = 1;
  static final byte OR = 2;
  static final byte NOT = 3;
  static final byte IS_NULL = 4;
  static final byte EQUAL = 5;
  static final byte LESS = 6;
  static final byte LESS_OR_EQUAL = 7;
  static final byte GREATER = 8;
  static final byte GREATER_OR_EQUAL = 9;
  static final byte NULL_SAFE_EQUAL = 10;
  static final byte IN = 11;
  static final byte STARTS_WITH = 12;
  static final byte ENDS_WITH = 13;
  static final byte CONTAINS = 14;

  /** The values a predicate reads; null is NULL. */
  public interface Row {
    byte[] value(int operand);
  }

  /** A row still being read: a pending operand's cell may still come, so its value is not known. */
  public interface PartialRow extends Row {
    boolean pending(int operand);
  }

  private final byte kind;
  private final RowPredicate[] children;
  private final int operand;
  private final byte[][] literals;

  private RowPredicate(byte kind, RowPredicate[] children, int operand, byte[][] literals) {
    this.kind = kind;
    this.children = children;
    this.operand = operand;
    this.literals = literals;
  }

  public static RowPredicate and(RowPredicate... children) {
    return new RowPredicate(AND, children, -1, new byte[0][]);
  }

  public static RowPredicate or(RowPredicate... children) {
    return new RowPredicate(OR, children, -1, new byte[0][]);
  }

  public static RowPredicate not(RowPredicate child) {
    return new RowPredicate(NOT, new RowPredicate[] {child}, -1, new byte[0][]);
  }

  public static RowPredicate isNull(int operand) {
    return leaf(IS_NULL, operand);
  }

  /** operand OP literal, OP one of {@code =, <, <=, >, >=, <=>}. */
  public static RowPredicate compare(String op, int operand, byte[] literal) {
    byte kind;
    switch (op) {
      case "=":
        kind = EQUAL;
        break;
      case "<":
        kind = LESS;
        break;
      case "<=":
        kind = LESS_OR_EQUAL;
        break;
      case ">":
        kind = GREATER;
        break;
      case ">=":
        kind = GREATER_OR_EQUAL;
        break;
      case "<=>":
        kind = NULL_SAFE_EQUAL;
        break;
      default:
        throw new IllegalArgumentException("unknown comparison " + op);
    }
    return leaf(kind, operand, literal);
  }

  /** operand IN (literals); the literals hold no NULL. */
  public static RowPredicate in(int operand, byte[]... literals) {
    byte[][] sorted = literals.clone();
    Arrays.sort(sorted, Bytes.BYTES_COMPARATOR);
    return leaf(IN, operand, sorted);
  }

  public static RowPredicate startsWith(int operand, byte[] prefix) {
    return leaf(STARTS_WITH, operand, prefix);
  }

  public static RowPredicate endsWith(int operand, byte[] suffix) {
    return leaf(ENDS_WITH, operand, suffix);
  }

  public static RowPredicate contains(int operand, byte[] part) {
    return leaf(CONTAINS, operand, part);
  }

  private static RowPredicate leaf(byte kind, int operand, byte[]... literals) {
    if (operand < 0) throw new IllegalArgumentException("an operand number is not negative");
    return new RowPredicate(kind, new RowPredicate[0], operand, literals);
  }

  /** TRUE, FALSE or UNKNOWN (NULL). */
  public byte eval(Row row) {
    switch (kind) {
      case AND:
        {
          byte result = TRUE;
          for (RowPredicate c : children) {
            byte v = c.eval(row);
            if (v == FALSE) return FALSE;
            if (v == UNKNOWN) result = UNKNOWN;
          }
          return result;
        }
      case OR:
        {
          byte result = FALSE;
          for (RowPredicate c : children) {
            byte v = c.eval(row);
            if (v == TRUE) return TRUE;
            if (v == UNKNOWN) result = UNKNOWN;
          }
          return result;
        }
      case NOT:
        {
          byte v = children[0].eval(row);
          return v == UNKNOWN ? UNKNOWN : v == TRUE ? FALSE : TRUE;
        }
      case IS_NULL:
        return row.value(operand) == null ? TRUE : FALSE;
      case NULL_SAFE_EQUAL:
        {
          byte[] value = row.value(operand);
          return value != null && Bytes.equals(value, literals[0]) ? TRUE : FALSE;
        }
      default:
        {
          byte[] value = row.value(operand);
          return value == null ? UNKNOWN : test(value) ? TRUE : FALSE;
        }
    }
  }

  /**
   * The values this predicate may still take on a row still being read, as {@link Outcomes}: a
   * pending operand may turn out to be anything, NULL included. Once the set lacks TRUE, the row
   * cannot match; once it is TRUE alone, it will.
   */
  int evalPartial(PartialRow row) {
    switch (kind) {
      case AND:
        {
          int result = Outcomes.TRUE;
          for (RowPredicate c : children) {
            result = Outcomes.and(result, c.evalPartial(row));
            if (result == Outcomes.FALSE) break;
          }
          return result;
        }
      case OR:
        {
          int result = Outcomes.FALSE;
          for (RowPredicate c : children) {
            result = Outcomes.or(result, c.evalPartial(row));
            if (result == Outcomes.TRUE) break;
          }
          return result;
        }
      case NOT:
        return Outcomes.not(children[0].evalPartial(row));
      default:
        return row.pending(operand) ? Outcomes.ANY : Outcomes.of(eval(row));
    }
  }

  private boolean test(byte[] value) {
    switch (kind) {
      case EQUAL:
        return Bytes.equals(value, literals[0]);
      case LESS:
        return Bytes.compareTo(value, literals[0]) < 0;
      case LESS_OR_EQUAL:
        return Bytes.compareTo(value, literals[0]) <= 0;
      case GREATER:
        return Bytes.compareTo(value, literals[0]) > 0;
      case GREATER_OR_EQUAL:
        return Bytes.compareTo(value, literals[0]) >= 0;
      case IN:
        return Arrays.binarySearch(literals, value, Bytes.BYTES_COMPARATOR) >= 0;
      case STARTS_WITH:
        return Bytes.startsWith(value, literals[0]);
      case ENDS_WITH:
        {
          byte[] suffix = literals[0];
          return value.length >= suffix.length
              && Bytes.equals(
                  value, value.length - suffix.length, suffix.length, suffix, 0, suffix.length);
        }
      case CONTAINS:
        return indexOf(value, literals[0]) >= 0;
      default:
        throw new IllegalStateException("unknown predicate kind " + kind);
    }
  }

  private static int indexOf(byte[] value, byte[] part) {
    outer:
    for (int i = 0; i + part.length <= value.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (value[i + j] != part[j]) continue outer;
      }
      return i;
    }
    return -1;
  }

  /** The largest operand number this predicate reads, or -1. */
  int maxOperand() {
    int max = operand;
    for (RowPredicate c : children) max = Math.max(max, c.maxOperand());
    return max;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeByte(kind);
    out.writeInt(operand);
    out.writeInt(children.length);
    for (RowPredicate c : children) c.write(out);
    out.writeInt(literals.length);
    for (byte[] l : literals) Wire.writeBytes(out, l);
  }

  static RowPredicate read(DataInputStream in, int depth) throws IOException {
    if (depth > 1000) throw new IOException("Corrupt predicate: nested too deeply");
    byte kind = in.readByte();
    if (kind < AND || kind > CONTAINS) throw new IOException("Corrupt predicate: kind " + kind);
    int operand = in.readInt();
    int n = in.readInt();
    if (n < 0 || n > in.available()) throw new IOException("Corrupt predicate: " + n + " children");
    RowPredicate[] children = new RowPredicate[n];
    for (int i = 0; i < n; i++) children[i] = read(in, depth + 1);
    int m = in.readInt();
    if (m < 0 || m > in.available()) throw new IOException("Corrupt predicate: " + m + " literals");
    byte[][] literals = new byte[m][];
    for (int i = 0; i < m; i++) literals[i] = Wire.readBytes(in);
    boolean leaf = kind > NOT;
    if (leaf
        ? operand < 0 || n != 0 || (kind != IS_NULL && kind != IN && m != 1)
        : operand != -1 || m != 0 || (kind == NOT && n != 1)) {
      throw new IOException("Corrupt predicate: malformed node of kind " + kind);
    }
    // IN searches its literals by bisection: whatever order they came in, they mean a set.
    if (kind == IN) Arrays.sort(literals, Bytes.BYTES_COMPARATOR);
    return new RowPredicate(kind, children, operand, literals);
  }

  @Override
  public String toString() {
    switch (kind) {
      case AND:
      case OR:
        {
          StringBuilder sb = new StringBuilder(kind == AND ? "and(" : "or(");
          for (int i = 0; i < children.length; i++)
            sb.append(i == 0 ? "" : ", ").append(children[i]);
          return sb.append(')').toString();
        }
      case NOT:
        return "not(" + children[0] + ")";
      case IS_NULL:
        return "#" + operand + " is null";
      default:
        return "#" + operand + " op" + kind + " " + literals.length + " literal(s)";
    }
  }
}
