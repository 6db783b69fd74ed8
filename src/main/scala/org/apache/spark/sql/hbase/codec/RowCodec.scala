// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.codec

import scala.util.control.NonFatal

import org.apache.hadoop.hbase.{Cell, CellUtil}
import org.apache.hadoop.hbase.client.{Delete, Mutation, Put, Result}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.{HBaseColumn, HBaseTableDef}
import org.apache.spark.sql.hbase.server.{ColumnOrder, PackedCell, PackedCellWriter}
import org.apache.spark.sql.types.{DataType, TimestampType}

/** Turns table rows into HBase mutations and HBase Results back into table rows. */
final class RowCodec(val table: HBaseTableDef) extends Serializable {
  val keyCodec: KeyCodec = KeyCodec.forTable(table)
  private val valueCodec = ValueCodec.forFormat(table.format)
  private val keyOrdinals: Array[Int] = table.keys.map(k => table.columns.indexOf(k)).toArray
  private val valueColumns: Array[(HBaseColumn, Int)] =
    table.columns.zipWithIndex.filter(_._1.cell.isDefined).toArray

  /** Family and qualifier of each value column, in table column order. */
  val families: Array[Array[Byte]] = valueColumns.map { case (c, _) => Utf8.bytes(c.cell.get.family) }
  val qualifiers: Array[Array[Byte]] = valueColumns.map { case (c, _) => Utf8.bytes(c.cell.get.qualifier) }
  // Looked up once: a row's generic get finds its type's reader on every call.
  @transient private lazy val keyGetters = keyOrdinals.map(o => InternalRow.getAccessor(table.columns(o).dataType))
  @transient private lazy val valueEncoders = valueColumns.map { case (c, _) => valueCodec.encoder(c.dataType) }

  def rowKey(row: InternalRow): Array[Byte] = encodeKey(row, keyOrdinals)

  /** The row key of a row that holds only the key columns, in key order. */
  def rowKeyOfKeys(keys: InternalRow): Array[Byte] = encodeKey(keys, keyOrdinals.indices.toArray)

  private def encodeKey(row: InternalRow, ordinals: Array[Int]): Array[Byte] = {
    val keyValues = new Array[Any](keyOrdinals.length)
    var i = 0
    while (i < keyOrdinals.length) {
      val ordinal = ordinals(i)
      if (row.isNullAt(ordinal)) {
        throw new HBaseSQLException(
          s"Key column '${table.columns(keyOrdinals(i)).name}' of table '${table.name}' cannot be NULL"
        )
      }
      keyValues(i) = keyGetters(i)(row, ordinal)
      i += 1
    }
    keyCodec.encode(keyValues.toSeq)
  }

  /** Deletes a row whole: every family that makes it a row of the table (all of a key-only table's). */
  def deleteRow(key: Array[Byte]): Delete = {
    val delete = new Delete(key)
    rowFamilies.foreach(f => delete.addFamily(f))
    delete
  }

  @transient private lazy val rowFamilies: Seq[Array[Byte]] = table.rowFamilies.map(Utf8.bytes)

  /** Where a row with no value keeps its empty marker cell. */
  @transient lazy val markerFamily: Array[Byte] = Utf8.bytes(table.rowMarkerFamily)

  /**
   * A row in table column order becomes a Put of its non-NULL values and, when some values are
   * NULL, a Delete of those cells, so that writing a row again replaces it as a whole.
   */
  def toMutations(row: InternalRow): Seq[Mutation] = {
    val key = rowKey(row)
    if (table.isPacked) return Seq(packedPut(key, cellValues(row)))
    val put = new Put(key)
    var delete: Delete = null
    val values = cellValues(row)
    var i = 0
    while (i < values.length) {
      if (values(i) == null) {
        if (delete == null) delete = new Delete(key)
        delete.addColumns(families(i), qualifiers(i))
      } else {
        put.addColumn(families(i), qualifiers(i), values(i))
      }
      i += 1
    }
    // HBase has no row without a cell: a row whose values are all NULL keeps an empty marker cell.
    if (put.isEmpty) put.addColumn(markerFamily, RowCodec.RowMarkerQualifier, Array.emptyByteArray)
    if (delete == null) Seq(put) else Seq(put, delete)
  }

  /**
   * The mutations of an UPDATE of `columns` (value columns) in one row, given as its key columns
   * in key order followed by the new values of `columns`: a Put of the non-NULL values and a
   * Delete of the cells set to NULL. Only those cells change. A row whose last cells become NULL
   * keeps the empty marker cell, so that it stays a row.
   */
  def updater(columns: Seq[HBaseColumn]): InternalRow => Seq[Mutation] = {
    require(!table.isPacked, s"${table.name} is packed: its updates are PackedRowUpdate's")
    val indexes = columns.map(cellIndex).toArray
    require(indexes.forall(_ >= 0), s"not value columns of ${table.name}: ${columns.map(_.name)}")
    val encoders = indexes.map(i => valueCodec.encoder(valueColumns(i)._1.dataType))
    val keys = keyOrdinals.length

    { row =>
      val key = rowKeyOfKeys(row)
      val put = new Put(key)
      var delete: Delete = null
      var i = 0
      while (i < indexes.length) {
        val (family, qualifier) = (families(indexes(i)), qualifiers(indexes(i)))
        if (row.isNullAt(keys + i)) {
          if (delete == null) delete = new Delete(key)
          delete.addColumns(family, qualifier)
        } else put.addColumn(family, qualifier, encoders(i)(row, keys + i))
        i += 1
      }
      if (delete == null) Seq(put)
      else Seq(put.addColumn(markerFamily, RowCodec.RowMarkerQualifier, Array.emptyByteArray), delete)
    }
  }

  /** The encoded cell of each value column (see [[families]]), or null where the value is NULL. */
  def cellValues(row: InternalRow): Array[Array[Byte]] = {
    val values = new Array[Array[Byte]](valueColumns.length)
    var i = 0
    while (i < values.length) {
      val ordinal = valueColumns(i)._2
      if (!row.isNullAt(ordinal)) values(i) = valueEncoders(i)(row, ordinal)
      i += 1
    }
    values
  }

  // A packed table's families, each value column's family among them and slot in its packed cell.
  @transient private lazy val packedFamilies: Array[String] = table.families.toArray
  @transient private lazy val packedFamilyBytes: Array[Array[Byte]] = packedFamilies.map(Utf8.bytes)
  @transient private lazy val packedPlace: Array[(Int, Int)] = valueColumns.map { case (c, _) =>
    (packedFamilies.indexOf(c.cell.get.family), table.slotOf(c.cell.get))
  }

  /**
   * The packed cells of a row's [[cellValues]]: one per family, every family's written (with no
   * value, a cell of no column), so that writing a row replaces it whole and it stays a row.
   */
  def packedCells(values: Array[Array[Byte]]): Array[(Array[Byte], Array[Byte])] = {
    val slots = packedFamilies.map(f => new Array[Array[Byte]](table.packedSlots(f).size))
    var i = 0
    while (i < values.length) {
      val (family, slot) = packedPlace(i)
      slots(family)(slot) = values(i)
      i += 1
    }
    packedFamilyBytes.indices.map(f => packedFamilyBytes(f) -> PackedCellWriter.write(slots(f))).toArray
  }

  private def packedPut(key: Array[Byte], values: Array[Array[Byte]]): Put = {
    val put = new Put(key)
    packedCells(values).foreach { case (family, cell) => put.addColumn(family, PackedCell.QUALIFIER, cell) }
    put
  }

  /** Where a value column's cell is in [[cellValues]]. */
  def cellIndex(column: HBaseColumn): Int = valueColumns.indexWhere(_._1 == column)

  /** The value of one encoded cell of [[cellValues]] (never null). */
  def decodeCell(index: Int, bytes: Array[Byte]): Any =
    valueCodec.decode(valueColumns(index)._1.dataType, bytes, 0, bytes.length)

  @transient private lazy val keyCheck = keyCodec.keyCheck.orNull

  /**
   * The key values of a row key of this table, or null for a key that is not one (another tool's
   * row): one that does not decode, or that lookups by its values would not find (see
   * [[KeyCodec.keyCheck]]).
   */
  def keyValues(key: Array[Byte]): Array[Any] =
    if (keyCheck != null && !keyCheck.accepts(key)) null
    else
      try keyCodec.decode(key)
      catch { case NonFatal(_) => null } // the codecs' own errors are not all RuntimeExceptions

  /** What is wrong with a row that [[decoder]] with `checkKeys` read as null, in words for an error message. */
  def rowProblem(result: Result): String =
    if (keyValues(result.getRow) == null) keyProblem(result.getRow)
    else packedProblem(result).getOrElse("it cannot be read")

  /** What is wrong with a packed table's row: a cell of its families that is not a well-formed packed cell. */
  private def packedProblem(result: Result): Option[String] = if (!table.isPacked) None
  else {
    val cells = Option(result.rawCells()).getOrElse(Array.empty[Cell])
    cells.iterator.flatMap { cell =>
      val family = Utf8.string(CellUtil.cloneFamily(cell))
      if (!packedFamilies.contains(family)) None
      else if (cell.getQualifierLength != 0) {
        Some(s"its cell $family:${Utf8.string(CellUtil.cloneQualifier(cell))} is not a packed cell, and this " +
          s"table (LAYOUT PACKED) keeps each family's values in one cell with an empty qualifier")
      } else {
        try { PackedCell.read(cell.getValueArray, cell.getValueOffset, cell.getValueLength); None }
        catch {
          case e: PackedCell.Malformed => Some(s"its packed cell in family $family is malformed: ${e.getMessage}")
        }
      }
    }.nextOption()
  }

  /** What is wrong with a key for which [[keyValues]] is null, in words for an error message. */
  def keyProblem(key: Array[Byte]): String = {
    val types = keyCodec.keyTypes.map(_.sql).mkString(", ")
    try {
      val values = keyCodec.decode(key)
      s"it reads as ($types) (${values.mkString(", ")}), which this table writes as " +
        BadRowKey.show(keyCodec.encode(values.toSeq))
    } catch {
      case _: java.nio.BufferUnderflowException =>
        s"it is not a key of ($types): it ends too early, or a 0x00 in it is neither escaped nor a column's end"
      case NonFatal(e) => s"it is not a key of ($types): ${Option(e.getMessage).getOrElse(e.getClass.getSimpleName)}"
    }
  }

  /**
   * Decodes the requested columns, in the given order, from one HBase row. A Result's cells are
   * sorted by column, newest version first, so one pass over them finds every requested cell.
   * A write-time column is its cell's timestamp (milliseconds), as a TIMESTAMP or a BIGINT.
   * With `checkKeys`, every row's key is checked ([[keyValues]]), and a bad one decodes to null.
   */
  def decoder(required: Seq[HBaseColumn], checkKeys: Boolean = false): Result => InternalRow =
    if (table.isPacked) packedDecoder(required, checkKeys) else cellsDecoder(required, checkKeys)

  private def cellsDecoder(required: Seq[HBaseColumn], checkKeys: Boolean): Result => InternalRow = {
    val keyIndex = required.map(c => table.keys.indexOf(c)).toArray
    val types = required.map(_.dataType).toArray
    val writeTime = required.map(_.isWriteTime).toArray
    val needsKey = keyIndex.exists(_ >= 0)
    val cellColumns = required.indices.filter(i => required(i).readsCell.isDefined).toArray
    val familyOf = cellColumns.map(i => i -> Utf8.bytes(required(i).readsCell.get.family)).toMap
    val qualifierOf = cellColumns.map(i => i -> Utf8.bytes(required(i).readsCell.get.qualifier)).toMap
    val positions = ColumnOrder.sort(cellColumns, familyOf(_), qualifierOf(_))
    val families = positions.map(familyOf)
    val qualifiers = positions.map(qualifierOf)
    val width = required.length
    result => {
      val keys = if (checkKeys) keyValues(result.getRow) else if (needsKey) keyCodec.decode(result.getRow) else null
      if (checkKeys && keys == null) null
      else {
        val values = new Array[Any](width)
        if (needsKey) {
          var i = 0
          while (i < values.length) {
            if (keyIndex(i) >= 0) values(i) = keys(keyIndex(i))
            i += 1
          }
        }
        val cells = result.rawCells()
        var c = 0
        var k = 0
        while (k < positions.length && cells != null && c < cells.length) {
          val cell = cells(c)
          val order = ColumnOrder.compare(families(k), qualifiers(k), cell)
          if (order == 0) {
            val i = positions(k)
            values(i) =
              if (writeTime(i)) RowCodec.writeTimeValue(types(i), cell.getTimestamp)
              else valueCodec.decode(types(i), cell.getValueArray, cell.getValueOffset, cell.getValueLength)
            k += 1 // the cell stays: the next requested column may be the same one
          } else if (order < 0) k += 1 // no cell for this column: NULL
          else c += 1
        }
        new GenericInternalRow(values)
      }
    }
  }

  /**
   * [[decoder]] for a packed table: each family's newest packed cell, and from it only the slots
   * of the required columns. A row with another cell in those families, or a malformed packed
   * cell, decodes to null with `checkKeys` (see [[rowProblem]]), and fails otherwise.
   */
  private def packedDecoder(required: Seq[HBaseColumn], checkKeys: Boolean): Result => InternalRow = {
    val keyIndex = required.map(c => table.keys.indexOf(c)).toArray
    val needsKey = keyIndex.exists(_ >= 0)
    val types = required.map(_.dataType).toArray
    val writeTime = required.map(_.isWriteTime).toArray
    val familyOf = required.map(_.readsCell.fold(-1)(c => packedFamilies.indexOf(c.family))).toArray
    val slotOf = required.map(_.readsCell.fold(-1)(table.slotOf)).toArray
    val families = packedFamilyBytes
    result => {
      val keys = if (checkKeys) keyValues(result.getRow) else if (needsKey) keyCodec.decode(result.getRow) else null
      val cells = result.rawCells()
      val packed = new Array[PackedCell](families.length)
      val stamps = new Array[Long](families.length)
      var ok = !(checkKeys && keys == null)
      var c = 0
      while (ok && cells != null && c < cells.length) {
        val cell = cells(c)
        var f = 0
        while (f < families.length && !CellUtil.matchingFamily(cell, families(f))) f += 1
        if (f < families.length) {
          if (cell.getQualifierLength != 0) ok = false // another tool's cell: reported, never dropped
          else if (packed(f) == null) { // the newest version comes first
            try {
              packed(f) = PackedCell.read(cell.getValueArray, cell.getValueOffset, cell.getValueLength)
              stamps(f) = cell.getTimestamp
            } catch { case _: PackedCell.Malformed => ok = false }
          }
        }
        c += 1
      }
      if (!ok) {
        if (checkKeys) null
        else throw BadRowKey.error(table, result.getRow, rowProblem(result))
      } else {
        val values = new Array[Any](required.length)
        var i = 0
        while (i < values.length) {
          if (keyIndex(i) >= 0) values(i) = keys(keyIndex(i))
          else {
            val cell = packed(familyOf(i))
            val slot = slotOf(i)
            if (cell != null && cell.has(slot)) {
              values(i) =
                if (writeTime(i)) RowCodec.writeTimeValue(types(i), stamps(familyOf(i)))
                else valueCodec.decode(types(i), cell.bytes, cell.valueOffset(slot), cell.valueLength(slot))
            }
          }
          i += 1
        }
        new GenericInternalRow(values)
      }
    }
  }
}

object RowCodec {
  val RowMarkerQualifier: Array[Byte] = Array.emptyByteArray

  /** What is wrong with a row a region server could not read from its packed cells. */
  val UnreadablePackedRow: String =
    "a cell in one of its packed families is not a well-formed packed cell (another tool's cell of one column, " +
      "or a packed cell cut short or malformed)"

  /** A cell's timestamp (epoch milliseconds) as a write-time column of `dataType` holds it. */
  def writeTimeValue(dataType: DataType, millis: Long): Any = dataType match {
    case TimestampType => Math.multiplyExact(millis, 1000L)
    case _ => millis
  }
}
