// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import java.util.Locale

import org.apache.spark.sql.catalyst.plans.logical.TableSpec
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.{
  CellMapping, CellRef, HBaseTableDef, HBaseTableName, TableFormat, TableLayout
}
import org.apache.spark.sql.types.DataType

/**
 * Spark's own CREATE TABLE (and CREATE TABLE ... AS SELECT) of an HBase catalog, as tools write
 * it: `CREATE TABLE hbase.t (...) USING hbase OPTIONS (primaryKey 'k1, k2')`. It says what
 * CREATE TABLE ... MAPPED BY says, with defaults: the HBase table of the same name, and every
 * other column a cell of family `f` named after the column. dbt's models write this statement
 * (`file_format='hbase'`, `options={...}`).
 *
 * Options (keys in any case):
 *  - `primaryKey`: the key columns, in row-key order (required);
 *  - `hbaseTable`: the HBase table, `[namespace:]name` (default: the table's name);
 *  - `family`: the family of the value columns (default `f`);
 *  - `columns`: cells for some columns, `c1=family.qualifier, ...` (the others go to `family`);
 *  - `layout`: `cells` or `packed`, as LAYOUT in CREATE TABLE ... MAPPED BY (and chosen as there when
 *    not given: see [[org.apache.spark.sql.hbase.commands.CreateHBaseTableCommand]]).
 */
object HBaseTableOptions {
  val Provider = "hbase"
  val PrimaryKey = "primarykey"
  val HBaseTable = "hbasetable"
  val Family = "family"
  val Columns = "columns"
  val Layout = "layout"
  private val Known = Seq(PrimaryKey, HBaseTable, Family, Columns, Layout)
  val DefaultFamily = "f"

  /** The definition Spark's CREATE TABLE `catalog.name` asks for, or an error naming what is wrong. */
  def definition(
      catalog: String,
      name: String,
      columns: Seq[(String, DataType, Boolean, Option[String])],
      partitioning: Seq[Transform],
      spec: TableSpec
  ): HBaseTableDef = {
    val statement = s"CREATE TABLE $catalog.$name"
    def fail(message: String) = throw new HBaseSQLException(s"$statement: $message")
    spec.provider.filterNot(_.equalsIgnoreCase(Provider)).foreach { p =>
      fail(s"an HBase table needs its mapping, so it is USING $Provider, not USING $p: write $statement ... " +
        s"USING $Provider OPTIONS (primaryKey 'k1, k2'), or $statement (..., PRIMARY KEY (...)) MAPPED BY (htable, COLS=[...])")
    }
    if (partitioning.nonEmpty) fail("HBase tables have no partitions: rows are ordered and split by their key")
    spec.location.foreach(l =>
      fail(s"LOCATION '$l': an HBase table has no location; name it with OPTIONS (hbaseTable '...')")
    )
    spec.properties.keys.toSeq.sorted.headOption.foreach { p =>
      fail(s"TBLPROPERTIES ('$p' ...): HBase tables keep no table properties; the mapping goes in OPTIONS")
    }
    spec.comment.foreach(_ => fail("COMMENT: HBase tables keep no table comment; comment the columns instead"))
    val options = spec.options.map { case (k, v) => k.toLowerCase(Locale.ROOT) -> v }
    options.keys.filterNot(Known.contains).toSeq.sorted.headOption.foreach { k =>
      fail(s"unknown option '$k'; the options of an HBase table are primaryKey, hbaseTable, family, columns and layout")
    }
    val keyColumns = options.get(PrimaryKey).map(list).filter(_.nonEmpty)
      .getOrElse(fail(
        "an HBase table needs its mapping: OPTIONS (primaryKey 'k1, k2, ...') names the columns of its row key"
      ))
    val family = options.getOrElse(Family, DefaultFamily).trim
    val mapped = options.get(Columns).map(list).getOrElse(Nil).map { entry =>
      entry.split("=", -1).map(_.trim) match {
        case Array(column, cell) if column.nonEmpty => column.toLowerCase(Locale.ROOT) -> cellRef(cell, fail)
        case _ => fail(s"option columns: '$entry' is not column=family.qualifier")
      }
    }.toMap
    val keys = keyColumns.map(_.toLowerCase(Locale.ROOT)).toSet
    val mappings = columns.map(_._1).filterNot(c => keys.contains(c.toLowerCase(Locale.ROOT))).map { c =>
      c -> CellMapping(mapped.getOrElse(c.toLowerCase(Locale.ROOT), CellRef(family, c)))
    }
    mapped.keys.filterNot(c => mappings.exists(_._1.equalsIgnoreCase(c))).toSeq.sorted.headOption.foreach { c =>
      fail(s"option columns maps '$c', which is not a value column of the table")
    }
    val hbaseTable = options.get(HBaseTable).map(_.trim).filter(_.nonEmpty).map(HBaseTableName.parse)
      .getOrElse(HBaseTableName("default", name))
    val layout = options.get(Layout).map(l => TableLayout.parse(l.trim))
    HBaseTableDef.fromStatement(name, hbaseTable, columns, keyColumns, mappings, TableFormat.Binary, layout)
  }

  /** Whether the statement names the table's layout. */
  def namesLayout(spec: TableSpec): Boolean = spec.options.keys.exists(_.equalsIgnoreCase(Layout))

  private def list(text: String): Seq[String] = text.split(",").map(_.trim).filter(_.nonEmpty).toSeq

  private def cellRef(text: String, fail: String => Nothing): CellRef = text.split("\\.", 2) match {
    case Array(family, qualifier) if family.nonEmpty && qualifier.nonEmpty => CellRef(family, qualifier)
    case _ => fail(s"option columns: '$text' is not family.qualifier")
  }
}
