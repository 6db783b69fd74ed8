// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CellUtil, CompareOperator}
import org.apache.hadoop.hbase.client.{Append, CheckAndMutate, Get, Put, Result}
import org.apache.hadoop.hbase.filter.{BinaryComparator, Filter, FilterList, SingleColumnValueFilter}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.server.{PackedCell, PackedCellWriter, PackedPatch}

/**
 * An UPDATE of some value columns of a LAYOUT PACKED table. Changing one column rewrites its
 * family's packed cell. Where the table has the server jar's merge ([[patch]]), the region server
 * merges the new values into the cell under the row's lock. Otherwise an update is a read, a merge
 * and a conditional write: the new cells are
 * written only if the row's packed cells of those families are still the ones read (HBase checks
 * and writes a row atomically), and otherwise the row is read and merged again. Two statements
 * updating different columns of one row thus never lose each other's values.
 *
 * A row is given as [[RowCodec.updater]] takes it: its key columns in key order, then the new
 * values of `columns`.
 */
final class PackedRowUpdate(codec: RowCodec, columns: Seq[HBaseColumn]) extends Serializable {
  private val table: HBaseTableDef = codec.table
  require(table.isPacked, s"${table.name} is not a packed table")
  require(
    columns.forall(c => c.cell.isDefined && !c.isWriteTime),
    s"not value columns of ${table.name}: ${columns.map(_.name)}"
  )

  // Every family of the table's columns is read: a row is a row when any of them has a cell.
  private val families: Array[String] = table.families.toArray
  private val familyBytes: Array[Array[Byte]] = families.map(Utf8.bytes)
  private val familyOf: Array[Int] = columns.map(c => families.indexOf(c.cell.get.family)).toArray
  private val changedFamilies: Array[Int] = familyOf.distinct
  private val slotOf: Array[Int] = columns.map(c => table.slotOf(c.cell.get)).toArray
  private val keys = table.keys.length
  @transient private lazy val encoders =
    columns.map(c => ValueCodec.forFormat(table.format).encoder(c.dataType)).toArray

  def rowKey(row: InternalRow): Array[Byte] = codec.rowKeyOfKeys(row)

  /**
   * The append that has the region server merge `row`'s new values into its packed cells
   * (`server.PackedMergeObserver`): a `PackedPatch` per family, under the family's patch name, which
   * a region server without the observer refuses.
   */
  def patch(row: InternalRow): Append = {
    val append = new Append(rowKey(row))
    patches(row).foreach { case (family, patch) => append.addColumn(family, PackedCell.QUALIFIER, patch) }
    append.setReturnResults(true)
    append
  }

  /**
   * The same patches as a Put, for a call of HBase's MultiRowMutationEndpoint, which writes a
   * region's rows as one atomic batch: the observer merges them there, and refuses them elsewhere.
   */
  def regionPatch(row: InternalRow): Put = {
    val put = new Put(rowKey(row))
    patches(row).foreach { case (family, patch) => put.addColumn(family, PackedCell.QUALIFIER, patch) }
    put
  }

  /** Each changed family's patch name, and its `PackedPatch`. */
  private def patches(row: InternalRow): Seq[(Array[Byte], Array[Byte])] =
    changedFamilies.toSeq.map { f =>
      val mine = columns.indices.filter(i => familyOf(i) == f)
      val values = mine.map(i => if (row.isNullAt(keys + i)) null else encoders(i)(row, keys + i)).toArray
      PackedPatch.family(familyBytes(f)) -> PackedPatch.write(mine.map(slotOf).toArray, values)
    }

  /** Reads the row's newest packed cell of each family. */
  def read(key: Array[Byte]): Get = {
    val get = new Get(key).readVersions(1)
    familyBytes.foreach(f => get.addColumn(f, PackedCell.QUALIFIER))
    get
  }

  /**
   * The conditional write that updates `row`, given what [[read]] found, or None for a row that is
   * no longer there (deleted since the statement read it: an UPDATE does not bring it back).
   * A cell that is not a packed cell fails the statement, naming the row.
   */
  def write(row: InternalRow, current: Result): Option[CheckAndMutate] =
    if (current.isEmpty) None
    else {
      val key = current.getRow
      val old = familyBytes.map(f => Option(current.getColumnLatestCell(f, PackedCell.QUALIFIER)))
      val slots = changedFamilies.map { f =>
        val width = table.packedSlots(families(f)).size
        val values = new Array[Array[Byte]](width)
        old(f).foreach { cell =>
          val packed =
            try PackedCell.read(cell.getValueArray, cell.getValueOffset, cell.getValueLength)
            catch {
              case e: PackedCell.Malformed =>
                throw BadRowKey.error(
                  table,
                  key,
                  s"its packed cell in family ${families(f)} is malformed: ${e.getMessage}"
                )
            }
          var s = 0
          while (s < width) { values(s) = packed.value(s); s += 1 }
        }
        values
      }
      var i = 0
      while (i < columns.length) {
        val values = slots(changedFamilies.indexOf(familyOf(i)))
        values(slotOf(i)) = if (row.isNullAt(keys + i)) null else encoders(i)(row, keys + i)
        i += 1
      }
      val put = new Put(key)
      changedFamilies.indices.foreach { c =>
        put.addColumn(familyBytes(changedFamilies(c)), PackedCell.QUALIFIER, PackedCellWriter.write(slots(c)))
      }
      val unchanged = CheckAndMutate.newBuilder(key)
      val conditioned = changedFamilies match {
        // The common case, and the cheaper condition for a region server: one cell compared.
        case Array(f) if old(f).isDefined =>
          unchanged.ifEquals(familyBytes(f), PackedCell.QUALIFIER, CellUtil.cloneValue(old(f).get))
        case _ =>
          val each = changedFamilies.map(f => stillIs(familyBytes(f), old(f).map(CellUtil.cloneValue)))
          unchanged.ifMatches(
            if (each.length == 1) each.head else new FilterList(FilterList.Operator.MUST_PASS_ALL, each.toList.asJava)
          )
      }
      Some(conditioned.build(put))
    }

  /**
   * A row passes when its newest packed cell of `family` is `value`, or, for None, when it has
   * none. No packed cell is empty (a version byte comes first), so "equal to no bytes" holds of a
   * present cell never, and of a missing one always (a missing column passes unless filtered).
   */
  private def stillIs(family: Array[Byte], value: Option[Array[Byte]]): Filter = {
    val filter = new SingleColumnValueFilter(
      family,
      PackedCell.QUALIFIER,
      CompareOperator.EQUAL,
      new BinaryComparator(value.getOrElse(Array.emptyByteArray))
    )
    filter.setFilterIfMissing(value.isDefined)
    filter.setLatestVersionOnly(true)
    filter
  }
}
