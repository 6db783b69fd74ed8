// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}

/**
 * One row of the catalog as read: a definition, or what is wrong with the row. A broken row
 * (hand-edited, truncated, or written by a newer plugin) fails only the statements that name its
 * table; the other tables stay usable, and DROP TABLE can still remove it.
 */
sealed trait CatalogEntry {

  /** The lower-cased SQL name the row is stored under. */
  def name: String

  /** The definition; for a broken row, an error naming the table and what is wrong. */
  def definition: HBaseTableDef

  def readable: Option[HBaseTableDef]
}

final case class ReadableEntry(definition: HBaseTableDef) extends CatalogEntry {
  override def name: String = definition.name
  override def readable: Option[HBaseTableDef] = Some(definition)
}

final case class UnreadableEntry(name: String, problem: String) extends CatalogEntry {
  override def readable: Option[HBaseTableDef] = None

  override def definition: HBaseTableDef = throw new HBaseSQLException(
    s"HBase table '$name' cannot be used: its catalog entry $problem. Other tables are not affected; " +
      s"DROP TABLE $name removes the entry and keeps the HBase table and its data"
  )
}

object CatalogEntry {

  /** The entry of the catalog row `rowKey` holding `value`. */
  def read(rowKey: Array[Byte], value: Array[Byte]): CatalogEntry = {
    val name = Utf8.string(rowKey)
    try {
      val definition = TableDefJson.fromJson(Utf8.string(value))
      if (TableDefinitionStore.rowKey(definition.name).sameElements(rowKey)) ReadableEntry(definition)
      else UnreadableEntry(name, s"defines table '${definition.name}' instead")
    } catch { case e: UnreadableTableDef => UnreadableEntry(name, e.problem) }
  }
}
