// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, TableFormat}
import org.apache.spark.sql.hbase.server.{KeyCheck, KeyLayout}
import org.apache.spark.sql.types.DataType

/**
 * How the leading values of a composite key start its row keys: all that turning key ranges
 * into row ranges needs (`planner.RowRanges`), of a table's keys or an index's.
 */
trait KeyPrefixes {
  def keyTypes: Seq[DataType]

  /**
   * Encodes the leading key columns only: every row key whose leading columns hold these values
   * starts with the returned bytes, so `KeyBounds.prefixRange` of it covers exactly those rows.
   */
  def encodePrefix(values: Seq[Any]): Array[Byte]
}

/** Turns the key columns of a row into an HBase row key and back. */
trait KeyCodec extends KeyPrefixes with Serializable {

  /** Encodes Catalyst internal values, one per key column. */
  def encode(values: Seq[Any]): Array[Byte]

  /** Decodes a whole row key back into Catalyst internal values. */
  def decode(key: Array[Byte]): Array[Any]

  /**
   * How a region server (and this side, through the same class) tells a key of the table from
   * other bytes: see `server.KeyCheck`. None when only decoding can tell (text of other types
   * than strings): a region server cannot check such keys.
   */
  def keyCheck: Option[KeyCheck]

  /**
   * Whether byte order of row keys equals SQL order of key tuples. Only then may a planner turn
   * a range predicate into a scan range; equality on a key prefix is always safe.
   */
  def preservesOrder: Boolean

  /** How many leading key columns a planner may prune by value (points at least). */
  def prunableKeyColumns: Int

  /** Whether key column `dim` (0-based, below [[prunableKeyColumns]]) may be pruned by a range, not only by points. */
  def canRange(dim: Int): Boolean

  /**
   * The leading key values that `key` (a row key or any boundary) holds whole, and whether it
   * ends right after them. A codec that cannot tell returns no values.
   */
  def decodePrefix(key: Array[Byte]): (Seq[Any], Boolean) = (Nil, false)

  /** How a region server cuts row keys of this codec into key columns ("slices"). */
  def sliceLayout: KeyLayout

  /** What comparing key column `dim`'s slice with encoded values can decide. */
  def sliceCheck(dim: Int): SliceCheck

  /**
   * The slice that key column `dim` holds for `value`: what [[sliceLayout]] cuts out of a key.
   * Slices of one column compare as unsigned bytes the way their row keys do.
   */
  def sliceOf(dim: Int, value: Any): Array[Byte]

  /** The least bytes above every slice of key column `dim` that starts with `slice`; None when none are. */
  def sliceAfter(dim: Int, slice: Array[Byte]): Option[Array[Byte]] =
    if (dim == keyTypes.size - 1) Some(KeyBounds.successor(slice))
    else Some(KeyBounds.prefixEnd(slice)).filter(_.nonEmpty)
}

/**
 * What a skip scan may check on one key column's slices: nothing; equality only, when slices
 * of equal values are equal bytes but their byte order is not the values' order; or order too.
 */
sealed trait SliceCheck
object SliceCheck {
  case object Opaque extends SliceCheck
  case object Equality extends SliceCheck
  case object Order extends SliceCheck
}

object KeyCodec {
  def forTable(table: HBaseTableDef): KeyCodec = table.format match {
    case TableFormat.Binary => new BinaryKeyCodec(table.keys.map(_.dataType))
    case TableFormat.StringFormat(delimiter) => new StringKeyCodec(table.keys.map(_.dataType), delimiter)
  }
}
