// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import java.util.Locale

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.types._

/** How row keys and cell values are laid out in HBase. */
sealed trait TableFormat {
  def name: String
}

object TableFormat {

  /** Our order-preserving binary encoding. */
  case object Binary extends TableFormat {
    override def name: String = "Binary"
  }

  /** UTF-8 text, as written by the HBase shell or ImportTsv; key columns joined by `delimiter`. */
  final case class StringFormat(delimiter: String = StringFormat.DefaultDelimiter) extends TableFormat {
    override def name: String = "StringFormat"
  }

  object StringFormat {
    val DefaultDelimiter = "|"
  }

  /** The format named in `IN <name>`, with its key delimiter when it is StringFormat. */
  def parse(text: String, delimiter: Option[String] = None): TableFormat = text.toLowerCase(Locale.ROOT) match {
    case "binary" if delimiter.isEmpty => Binary
    case "binary" => throw new HBaseSQLException("DELIMITER applies only to IN StringFormat")
    case "stringformat" =>
      val d = delimiter.getOrElse(StringFormat.DefaultDelimiter)
      if (d.isEmpty) throw new HBaseSQLException("The DELIMITER of IN StringFormat must not be empty")
      StringFormat(d)
    case _ => throw new HBaseSQLException(s"Unknown table format '$text' after IN; expected Binary or StringFormat")
  }
}

/**
 * How a table stores its value columns: a cell per column (`CELLS`, what other tools write too),
 * or every mapped column of a family in one packed cell per row (`PACKED`, see `server.PackedCell`).
 */
sealed trait TableLayout {
  def name: String
}

object TableLayout {
  case object Cells extends TableLayout {
    override def name: String = "CELLS"
  }

  case object Packed extends TableLayout {
    override def name: String = "PACKED"
  }

  /** The layout named in `LAYOUT <name>`. */
  def parse(text: String): TableLayout = text.toUpperCase(Locale.ROOT) match {
    case "CELLS" => Cells
    case "PACKED" => Packed
    case _ => throw new HBaseSQLException(s"Unknown table layout '$text' after LAYOUT; expected CELLS or PACKED")
  }
}

final case class HBaseTableName(namespace: String, name: String) {

  /** The name as HBase's client takes it. */
  def hbase: org.apache.hadoop.hbase.TableName = org.apache.hadoop.hbase.TableName.valueOf(namespace, name)

  /** The name as HBase prints it: the default namespace is left out. */
  override def toString: String = if (namespace == "default") name else s"$namespace:$name"
}

object HBaseTableName {
  def parse(text: String): HBaseTableName = text.split(":", -1) match {
    case Array(name) => HBaseTableName("default", name)
    case Array(ns, name) => HBaseTableName(ns, name)
    case _ => throw new HBaseSQLException(s"Invalid HBase table name '$text' in MAPPED BY")
  }
}

final case class CellRef(family: String, qualifier: String) {
  override def toString: String = s"$family.$qualifier"
}

/** Where a mapped column's values come from: a cell's value, or the time that value was written. */
final case class CellMapping(cell: CellRef, writeTime: Boolean = false) {
  override def toString: String = if (writeTime) s"WRITETIME($cell)" else cell.toString
}

/**
 * A SQL column. Key columns are parts of the row key; a value column holds one cell's value
 * (`cell`); a write-time column holds the timestamp of another column's cell (`writeTimeOf`),
 * which HBase sets when the cell is written, so it is read-only.
 */
final case class HBaseColumn(
    name: String,
    dataType: DataType,
    nullable: Boolean,
    cell: Option[CellRef],
    comment: Option[String] = None,
    writeTimeOf: Option[CellRef] = None
) {
  def isKey: Boolean = cell.isEmpty && writeTimeOf.isEmpty

  def isWriteTime: Boolean = writeTimeOf.isDefined

  /** The cell a read needs for this column: its value's or its write time's. */
  def readsCell: Option[CellRef] = cell.orElse(writeTimeOf)
}

object HBaseColumn {

  /** The types a write-time column may have: TIMESTAMP, or BIGINT for milliseconds since the epoch as HBase stores them. */
  val WriteTimeTypes: Seq[DataType] = Seq(TimestampType, LongType)
}

/**
 * The mapping of one SQL table onto an HBase table: what the catalog stores. A table may map no
 * value column at all (key-only): then any HBase row is one of its rows. A row whose mapped cells
 * are all NULL keeps an empty marker cell in `rowMarkerFamily`; `markerFamily` names it when it is
 * not the first mapped family (key-only tables, and tables whose first family was dropped).
 * `ownsHBaseTable`: CREATE TABLE made the HBase table, so DROP TABLE ... PURGE may delete it.
 */
final case class HBaseTableDef(
    name: String,
    hbaseTable: HBaseTableName,
    columns: Seq[HBaseColumn],
    keyColumns: Seq[String],
    format: TableFormat,
    indexes: Seq[RangeIndexDef] = Nil,
    markerFamily: Option[String] = None,
    ownsHBaseTable: Boolean = false,
    layout: TableLayout = TableLayout.Cells,
    packedSlots: Map[String, Seq[String]] = Map.empty,
    globalIndexes: Seq[GlobalIndexDef] = Nil
) {

  def isPacked: Boolean = layout == TableLayout.Packed

  /** The table as EXPLAIN names it: its name, then its HBase table's. */
  def described: String = s"$name [$hbaseTable]"

  /**
   * Where a packed table's value in `cell` sits in its family's packed cell: the qualifiers of a
   * family in slot order, a dropped column's slot kept, so that old rows read as they were written.
   */
  def slotOf(cell: CellRef): Int = packedSlots.getOrElse(cell.family, Nil).indexOf(cell.qualifier)

  def column(colName: String): HBaseColumn =
    columns.find(_.name.equalsIgnoreCase(colName)).getOrElse(
      throw new HBaseSQLException(s"Column '$colName' does not exist in table '$name'")
    )

  def keys: Seq[HBaseColumn] = keyColumns.map(column)

  /** The columns whose values are stored in cells. */
  def values: Seq[HBaseColumn] = columns.filter(_.cell.isDefined)

  /** This table with a cell a column: a packed table's definition before it has rows. */
  def asCells: HBaseTableDef = copy(layout = TableLayout.Cells, packedSlots = Map.empty)

  /** The columns a write gives values for: all but the write times, which HBase sets. */
  def writable: Seq[HBaseColumn] = columns.filterNot(_.isWriteTime)

  /** The families of the mapped cells. */
  def families: Seq[String] = values.flatMap(_.cell).map(_.family).distinct

  def isKeyOnly: Boolean = values.isEmpty

  def writeTimes: Seq[HBaseColumn] = columns.filter(_.isWriteTime)

  def rowMarkerFamily: String = markerFamily.getOrElse(families.head)

  /** The families that make a row one of the table's: every family (Nil) for a key-only table. */
  def rowFamilies: Seq[String] = if (isKeyOnly) Nil else (families ++ markerFamily).distinct

  def hasColumn(colName: String): Boolean = columns.exists(_.name.equalsIgnoreCase(colName))

  /** The table with one more mapped column, checked like the columns of CREATE TABLE. */
  def withColumn(column: HBaseColumn): HBaseTableDef = {
    def fail(msg: String) = throw new HBaseSQLException(s"ALTER TABLE $name ADD COLUMN ${column.name}: $msg")
    if (hasColumn(column.name)) fail(s"table '$name' already has a column '${column.name}'")
    if (!column.nullable) fail("a new column must allow NULL: the rows already stored have no value for it")
    column.readsCell.flatMap(HBaseTableDef.cellProblem).foreach(fail)
    column.writeTimeOf match {
      case Some(cell) => HBaseTableDef.writeTimeProblem(this, column.dataType, cell).foreach(fail)
      case None =>
        values.find(_.cell == column.cell).foreach(c =>
          fail(s"cell ${column.cell.get} is already mapped to column '${c.name}'")
        )
        if (!SupportedTypes.isSupported(column.dataType)) {
          fail(s"type ${column.dataType.sql} is not supported; supported: ${SupportedTypes.describe}")
        }
    }
    val added = copy(columns = columns :+ column)
    column.cell match {
      case Some(cell) if isPacked && slotOf(cell) < 0 =>
        added.copy(packedSlots =
          packedSlots.updated(cell.family, packedSlots.getOrElse(cell.family, Nil) :+ cell.qualifier)
        )
      case _ => added
    }
  }

  /** The table without a value column; key columns make up the row key and cannot be dropped. */
  def withoutColumn(colName: String): HBaseTableDef = {
    val column = this.column(colName)
    indexes.find(_.columns.contains(column.name)).foreach { i =>
      throw new HBaseSQLException(
        s"ALTER TABLE $name DROP COLUMN $colName: '${column.name}' is in range index '${i.name}'; DROP INDEX ${i.name} ON $name first"
      )
    }
    globalIndexes.find(_.uses(column.name)).foreach { i =>
      throw new HBaseSQLException(
        s"ALTER TABLE $name DROP COLUMN $colName: '${column.name}' is in global index '${i.name}'; DROP INDEX ${i.name} ON $name first"
      )
    }
    if (column.isKey) {
      throw new HBaseSQLException(
        s"ALTER TABLE $name DROP COLUMN $colName: '${column.name}' is a key column; the row key is (${keyColumns.mkString(", ")})"
      )
    }
    writeTimes.find(w => column.cell.isDefined && w.writeTimeOf == column.cell).foreach { w =>
      throw new HBaseSQLException(s"ALTER TABLE $name DROP COLUMN $colName: column '${w.name}' is the write time of " +
        s"its cell ${column.cell.get}; DROP COLUMN ${w.name} first")
    }
    val dropped = copy(columns = columns.filterNot(_ eq column))
    // Rows whose values were all NULL keep their marker cell where it is.
    if (dropped.families.headOption == families.headOption) dropped
    else dropped.copy(markerFamily = Some(rowMarkerFamily))
  }

  def index(indexName: String): Option[RangeIndexDef] = indexes.find(_.name.equalsIgnoreCase(indexName))

  /** The table with `index` in place of the index of the same name, or with it added. */
  def withIndex(index: RangeIndexDef): HBaseTableDef =
    copy(indexes = indexes.filterNot(_.name.equalsIgnoreCase(index.name)) :+ index)

  def withoutIndex(indexName: String): HBaseTableDef =
    copy(indexes = indexes.filterNot(_.name.equalsIgnoreCase(indexName)))

  def globalIndex(indexName: String): Option[GlobalIndexDef] = globalIndexes.find(_.name.equalsIgnoreCase(indexName))

  /** Whether an index of either kind has this name: one name space for both. */
  def hasIndexNamed(indexName: String): Boolean = index(indexName).isDefined || globalIndex(indexName).isDefined

  /** The table with `index` in place of the global index of the same name, or with it added. */
  def withGlobalIndex(index: GlobalIndexDef): HBaseTableDef =
    copy(globalIndexes = globalIndexes.filterNot(_.name.equalsIgnoreCase(index.name)) :+ index)

  def withoutGlobalIndex(indexName: String): HBaseTableDef =
    copy(globalIndexes = globalIndexes.filterNot(_.name.equalsIgnoreCase(indexName)))

  def schema: StructType = StructType(columns.map { c =>
    val field = StructField(c.name, c.dataType, c.nullable)
    c.comment.fold(field)(field.withComment)
  })
}

object HBaseTableDef {

  /** Builds a definition from the parts of a CREATE TABLE statement, checking them all. */
  def fromStatement(
      name: String,
      hbaseTable: HBaseTableName,
      columns: Seq[(String, DataType, Boolean, Option[String])],
      keyColumns: Seq[String],
      mappings: Seq[(String, CellMapping)],
      format: TableFormat,
      layout: Option[TableLayout] = Some(TableLayout.Cells)
  ): HBaseTableDef = {
    def fail(msg: String) = throw new HBaseSQLException(s"CREATE TABLE $name: $msg")
    def norm(s: String) = s.toLowerCase(Locale.ROOT)

    if (columns.isEmpty) fail("no columns are defined")
    columns.groupBy(c => norm(c._1)).collect { case (_, cs) if cs.size > 1 => cs.head._1 }
      .headOption.foreach(c => fail(s"column '$c' is defined more than once"))
    val byName = columns.map(c => norm(c._1) -> c).toMap

    if (keyColumns.isEmpty) fail("PRIMARY KEY (...) is required: it defines the HBase row key")
    keyColumns.groupBy(norm).collect { case (_, ks) if ks.size > 1 => ks.head }
      .headOption.foreach(k => fail(s"column '$k' appears twice in PRIMARY KEY"))
    keyColumns.filterNot(k => byName.contains(norm(k)))
      .headOption.foreach(k => fail(s"PRIMARY KEY column '$k' is not defined"))
    val keySet = keyColumns.map(norm).toSet

    mappings.groupBy(m => norm(m._1)).collect { case (_, ms) if ms.size > 1 => ms.head._1 }
      .headOption.foreach(c => fail(s"column '$c' is mapped more than once in COLS"))
    mappings.foreach { case (col, cell) =>
      if (!byName.contains(norm(col))) fail(s"COLS maps '$col=$cell' but column '$col' is not defined")
      if (keySet.contains(norm(col)))
        fail(s"key column '$col' is part of the row key and cannot be mapped to '$cell' in COLS")
    }
    mappings.groupBy(_._2).collect { case (mapping, ms) if ms.size > 1 => (mapping, ms.map(_._1)) }
      .headOption.foreach { case (mapping, cols) =>
        fail(
          s"columns ${cols.mkString(", ")} share ${if (mapping.writeTime) mapping else s"the cell $mapping"} in COLS"
        )
      }
    HBaseNames.tableProblem(hbaseTable).foreach(fail)
    mappings.foreach { case (col, mapping) =>
      HBaseTableDef.cellProblem(mapping.cell).foreach(p => fail(s"column '$col': $p"))
    }
    val cellOf = mappings.collect { case (c, CellMapping(cell, false)) => norm(c) -> cell }.toMap
    val writeTimeOf = mappings.collect { case (c, CellMapping(cell, true)) => norm(c) -> cell }.toMap

    val defined = columns.map { case (colName, dataType, notNull, comment) =>
      val isKey = keySet.contains(norm(colName))
      if (!isKey && !cellOf.contains(norm(colName)) && !writeTimeOf.contains(norm(colName))) {
        fail(s"column '$colName' is neither in PRIMARY KEY nor mapped in COLS=[$colName=family.qualifier]")
      }
      if (!SupportedTypes.isSupported(dataType)) {
        fail(s"column '$colName' has unsupported type ${dataType.sql}; supported: ${SupportedTypes.describe}")
      }
      HBaseColumn(
        colName,
        dataType,
        nullable = !isKey && !notNull,
        cellOf.get(norm(colName)),
        comment,
        writeTimeOf.get(norm(colName))
      )
    }
    val canonicalKeys = keyColumns.map(k => byName(norm(k))._1)
    if (layout.contains(TableLayout.Packed)) {
      if (format != TableFormat.Binary) fail(s"LAYOUT PACKED stores values in the Binary format, not ${format.name}")
      if (cellOf.isEmpty) fail("LAYOUT PACKED packs value columns, and the table maps none")
    }
    // Unnamed, packed where it can be: CREATE TABLE may still choose cells (CreateHBaseTableCommand).
    val chosen = layout.getOrElse(
      if (format == TableFormat.Binary && cellOf.nonEmpty) TableLayout.Packed else TableLayout.Cells
    )
    val slots =
      if (chosen != TableLayout.Packed) Map.empty[String, Seq[String]]
      else mappings.collect { case (_, CellMapping(cell, false)) => cell }.groupBy(_.family).map {
        case (family, cells) => family -> cells.map(_.qualifier)
      }
    val definition = HBaseTableDef(
      name,
      hbaseTable,
      defined,
      canonicalKeys,
      format,
      markerFamily = if (cellOf.isEmpty) Some(KeyOnlyMarkerFamily) else None,
      layout = chosen,
      packedSlots = slots
    )
    definition.writeTimes.foreach { w =>
      if (!w.nullable) fail(
        s"write-time column '${w.name}' cannot be NOT NULL: a row without the cell ${w.writeTimeOf.get} has no write time"
      )
      writeTimeProblem(definition.copy(columns = definition.columns.filterNot(_ eq w)), w.dataType, w.writeTimeOf.get)
        .foreach(problem => fail(s"column '${w.name}': $problem"))
    }
    definition
  }

  /** What HBase or the row marker forbids in the name of `cell`, if anything. */
  def cellProblem(cell: CellRef): Option[String] =
    HBaseNames.familyProblem(cell.family).orElse(HBaseNames.qualifierProblem(cell.qualifier))

  /** What stops a column of `dataType` from holding the write time of `cell` in `table`, if anything. */
  def writeTimeProblem(table: HBaseTableDef, dataType: DataType, cell: CellRef): Option[String] = {
    if (!HBaseColumn.WriteTimeTypes.contains(dataType)) {
      Some(s"WRITETIME($cell) is a TIMESTAMP, or a BIGINT of milliseconds since the epoch, not ${dataType.sql}")
    } else if (!table.values.exists(_.cell.contains(cell))) {
      Some(s"WRITETIME($cell) needs the cell $cell mapped to a column of table '${table.name}'")
    } else {
      table.writeTimes.find(_.writeTimeOf.contains(cell)).map(w =>
        s"the write time of $cell is already column '${w.name}'"
      )
    }
  }

  /** The family of a key-only table's marker cells when CREATE TABLE makes its HBase table. */
  val KeyOnlyMarkerFamily = "f"
}
