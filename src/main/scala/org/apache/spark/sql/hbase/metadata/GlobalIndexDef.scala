// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import java.util.Locale

import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * A global index of a table: a second HBase table, `indexTable`, keyed by the values of `columns`
 * then the data row key, holding the cells of `covered` (see docs/indexes.md). The region servers
 * keep it for every writer from the moment its build begins; queries may read it only once it is
 * [[GlobalIndexState.Ready]]. `builtRows` is how many index rows its build wrote.
 */
final case class GlobalIndexDef(
    name: String,
    columns: Seq[String],
    covered: Seq[String],
    indexTable: HBaseTableName,
    state: GlobalIndexState,
    builtRows: Option[Long] = None
) {
  def isReady: Boolean = state == GlobalIndexState.Ready

  /** Whether the index reads or copies `column`. */
  def uses(column: String): Boolean = (columns ++ covered).exists(_.equalsIgnoreCase(column))
}

sealed trait GlobalIndexState {
  def name: String
}

object GlobalIndexState {

  /** Claimed and kept by the region servers, its existing rows not all written yet. */
  case object Building extends GlobalIndexState {
    override def name: String = "building"
  }

  case object Ready extends GlobalIndexState {
    override def name: String = "ready"
  }

  def parse(text: String): GlobalIndexState = Seq(Building, Ready).find(_.name == text).getOrElse(
    throw new HBaseSQLException(s"unknown global index state '$text'")
  )
}

object GlobalIndexDef {
  val Type = "global"

  /** The option that names the covered columns, as `OPTIONS (include 'a, b')`. */
  val IncludeOption = "include"

  /** The family of an index row's status cell; a table with a family of this name has no global index. */
  val StatusFamily = "_s"

  /** The HBase table of index `indexName` of `table`: in the data table's namespace, named after both. */
  def indexTableOf(table: HBaseTableDef, indexName: String): HBaseTableName =
    HBaseTableName(table.hbaseTable.namespace, s"${table.hbaseTable.name}.${indexName.toLowerCase(Locale.ROOT)}.idx")

  /**
   * The index a CREATE INDEX ... USING global statement describes, checked against the table;
   * `comparable` says whether a region server can read a column's values as order-preserving bytes.
   */
  def fromStatement(
      table: HBaseTableDef,
      name: String,
      columns: Seq[String],
      options: Map[String, String],
      comparable: HBaseColumn => Boolean
  ): GlobalIndexDef = {
    def fail(msg: String) = throw new HBaseSQLException(s"CREATE INDEX $name ON ${table.name}: $msg")
    def canonical(c: String, role: String): String = {
      if (!table.hasColumn(c)) fail(s"$role '$c' does not exist in table '${table.name}'")
      val column = table.column(c)
      if (column.isKey) {
        fail(s"'${column.name}' is a key column: the row key already finds rows by it, and every index row holds it")
      }
      if (column.isWriteTime) {
        fail(s"'${column.name}' is the write time of cell ${column.writeTimeOf.get}; an index holds values")
      }
      if (role == "column" && !comparable(column)) {
        fail(s"column '${column.name}' cannot be indexed: in the ${table.format.name} format its " +
          s"${column.dataType.sql} values do not sort as their bytes do (there only STRING and BINARY can be)")
      }
      column.name
    }
    def twice(names: Seq[String], what: String): Unit =
      names.groupBy(_.toLowerCase(Locale.ROOT)).collect { case (_, cs) if cs.size > 1 => cs.head }
        .headOption.foreach(c => fail(s"$what '$c' is named twice"))

    if (columns.isEmpty) fail("name at least one column")
    twice(columns, "column")
    val indexed = columns.map(canonical(_, "column"))
    val include = options.foldLeft(Seq.empty[String]) {
      case (_, (key, value)) if key.equalsIgnoreCase(IncludeOption) =>
        value.split(",").map(_.trim).filter(_.nonEmpty).toSeq
      case (_, (key, _)) => fail(s"unknown option '$key' for USING $Type; the one option is $IncludeOption")
    }
    twice(include, "covered column")
    val covered = include.map(canonical(_, "covered column"))
    covered.find(c => indexed.contains(c)).foreach(c =>
      fail(s"'$c' is both indexed and covered; an index row's key already holds the indexed values")
    )
    table.families.find(_ == StatusFamily).foreach { f =>
      fail(s"column family '$f' holds an index row's status; a table with a family of that name cannot be indexed")
    }
    val indexTable = indexTableOf(table, name)
    HBaseNames.tableProblem(indexTable).foreach(p =>
      fail(s"the index's HBase table would be '$indexTable', and $p; choose another index name")
    )
    GlobalIndexDef(name, indexed, covered, indexTable, GlobalIndexState.Building)
  }
}
