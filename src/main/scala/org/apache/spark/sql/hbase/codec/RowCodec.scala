package org.apache.spark.sql.hbase.codec

import org.apache.hadoop.hbase.client.{Delete, Mutation, Put, Result}

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.{HBaseColumn, HBaseTableDef}

/** Turns table rows into HBase mutations and HBase Results back into table rows. */
final class RowCodec(val table: HBaseTableDef) extends Serializable {
  val keyCodec: KeyCodec = KeyCodec.forTable(table)
  private val valueCodec = ValueCodec.forFormat(table.format)
  private val keyOrdinals: Array[Int] = table.keys.map(k => table.columns.indexOf(k)).toArray
  private val valueColumns: Array[(HBaseColumn, Int)] =
    table.columns.zipWithIndex.filterNot(_._1.isKey).toArray
  /** Family and qualifier of each value column, in table column order. */
  val families: Array[Array[Byte]] = valueColumns.map { case (c, _) => Utf8.bytes(c.cell.get.family) }
  val qualifiers: Array[Array[Byte]] = valueColumns.map { case (c, _) => Utf8.bytes(c.cell.get.qualifier) }
  // Looked up once: a row's generic get finds its type's reader on every call.
  @transient private lazy val keyGetters = keyOrdinals.map(o => InternalRow.getAccessor(table.columns(o).dataType))
  @transient private lazy val valueEncoders = valueColumns.map { case (c, _) => valueCodec.encoder(c.dataType) }

  def rowKey(row: InternalRow): Array[Byte] = {
    val keyValues = new Array[Any](keyOrdinals.length)
    var i = 0
    while (i < keyOrdinals.length) {
      val ordinal = keyOrdinals(i)
      if (row.isNullAt(ordinal)) {
        throw new HBaseSqlException(
          s"Key column '${table.columns(ordinal).name}' of table '${table.name}' cannot be NULL")
      }
      keyValues(i) = keyGetters(i)(row, ordinal)
      i += 1
    }
    keyCodec.encode(keyValues.toSeq)
  }

  /**
   * A row in table column order becomes a Put of its non-NULL values and, when some values are
   * NULL, a Delete of those cells, so that writing a row again replaces it as a whole.
   */
  def toMutations(row: InternalRow): Seq[Mutation] = {
    val key = rowKey(row)
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
    if (put.isEmpty) put.addColumn(families(0), RowCodec.RowMarkerQualifier, Array.emptyByteArray)
    if (delete == null) Seq(put) else Seq(put, delete)
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

  /** Decodes the requested columns, in the given order, from one HBase row. */
  def decoder(required: Seq[HBaseColumn]): Result => InternalRow = {
    val keyIndex = required.map(c => table.keys.indexOf(c)).toArray
    val cells = required.map(c => c.cell.map(cell => (Utf8.bytes(cell.family), Utf8.bytes(cell.qualifier)))).toArray
    val types = required.map(_.dataType).toArray
    val needsKey = keyIndex.exists(_ >= 0)
    result => {
      val keyValues = if (needsKey) keyCodec.decode(result.getRow) else null
      val values = new Array[Any](required.length)
      var i = 0
      while (i < values.length) {
        if (keyIndex(i) >= 0) values(i) = keyValues(keyIndex(i))
        else {
          val (family, qualifier) = cells(i).get
          val cell = result.getColumnLatestCell(family, qualifier)
          values(i) =
            if (cell == null) null
            else valueCodec.decode(types(i), cell.getValueArray, cell.getValueOffset, cell.getValueLength)
        }
        i += 1
      }
      new GenericInternalRow(values)
    }
  }
}

object RowCodec {
  val RowMarkerQualifier: Array[Byte] = Array.emptyByteArray
}
