// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.globalindex

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.codec.CellTypes
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, HBaseTableDef, HBaseTableName, TableDefinitionStore}
import org.apache.spark.sql.hbase.server.{IndexSpec, PackedCell}

/** A global index as the region servers keep it: the `server.IndexSpec` of its definition. */
object IndexSpecs {

  def of(table: HBaseTableDef, index: GlobalIndexDef): IndexSpec = {
    val indexed = index.columns.map { c =>
      val column = table.column(c)
      CellTypes.valueOperand(table, column, readsPackedCells = true).getOrElse(
        throw new HBaseSQLException(s"Global index '${index.name}' of table '${table.name}': a region server " +
          s"cannot compare the values of column '${column.name}'")
      )
    }
    val covered = coveredCells(table, index)
    new IndexSpec(
      index.indexTable.hbase.getNameAsString,
      indexed.toArray,
      covered.map(_._1).toArray,
      covered.map(_._2).toArray
    )
  }

  /** The (family, qualifier) of each cell an index row copies: a packed table's whole family cell. */
  def coveredCells(table: HBaseTableDef, index: GlobalIndexDef): Seq[(Array[Byte], Array[Byte])] = {
    val cells = index.covered.flatMap(c => table.column(c).cell)
    if (table.isPacked) cells.map(_.family).distinct.map(f => (Utf8.bytes(f), PackedCell.QUALIFIER))
    else cells.map(c => (Utf8.bytes(c.family), Utf8.bytes(c.qualifier)))
  }

  /**
   * [[coveredCells]] in the order HBase keeps a row's cells (by family, then qualifier, as
   * unsigned bytes): the order a covering read finds them in, and keeps them in ([[CoveredRow]]).
   */
  def coveredCellsInRowOrder(table: HBaseTableDef, index: GlobalIndexDef): Seq[(Array[Byte], Array[Byte])] =
    coveredCells(table, index).sortWith { case ((f1, q1), (f2, q2)) =>
      val byFamily = java.util.Arrays.compareUnsigned(f1, f2)
      if (byFamily != 0) byFamily < 0 else java.util.Arrays.compareUnsigned(q1, q2) < 0
    }

  /** The (family, qualifier) of each cell of a data row the index reads: its indexed values' and its covered cells. */
  def readCells(table: HBaseTableDef, index: GlobalIndexDef): Seq[(Array[Byte], Array[Byte])] = {
    val indexed = index.columns.flatMap(c => table.column(c).cell).map { cell =>
      (Utf8.bytes(cell.family), if (table.isPacked) PackedCell.QUALIFIER else Utf8.bytes(cell.qualifier))
    }
    (indexed ++ coveredCells(table, index)).distinctBy { case (f, q) => (Utf8.string(f), Utf8.string(q)) }
  }

  /** The families of an index's HBase table: the status cell's and the covered cells'. */
  def families(table: HBaseTableDef, index: GlobalIndexDef): Seq[String] =
    GlobalIndexDef.StatusFamily +: index.covered.flatMap(c => table.column(c).cell).map(_.family).distinct

  /** The specs of every global index over one HBase table, in the order of the definitions and their indexes. */
  def over(tables: Seq[HBaseTableDef]): Seq[IndexSpec] =
    tables.sortBy(_.name).flatMap(t => t.globalIndexes.map(of(t, _)))

  /**
   * The specs of every global index the catalog has over `hbaseTable`, building or ready: those
   * the region servers keep. None when some catalog entry cannot be read.
   */
  def kept(catalog: TableDefinitionStore, hbaseTable: HBaseTableName): Option[Seq[IndexSpec]] =
    catalog.over(hbaseTable).map(over)
}
