// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{TableName, TableNotFoundException}
import org.apache.hadoop.hbase.client.Admin

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.HBaseTableName

/** A mapping may only name column families that the HBase table has. */
private[commands] object MappedFamilies {
  def requirePresent(admin: Admin, table: HBaseTableName, families: Seq[String], statement: String): Unit = {
    val descriptor =
      try admin.getDescriptor(TableName.valueOf(table.namespace, table.name))
      catch {
        // A table is in the catalog a moment before CREATE TABLE makes its HBase table.
        case e: TableNotFoundException =>
          throw new HBaseSQLException(
            s"$statement: HBase table '$table' does not exist; if CREATE TABLE is making it now, run this again",
            Some(e)
          )
      }
    val present = descriptor.getColumnFamilyNames.asScala.map(Utf8.string).toSet
    families.filterNot(present.contains).headOption.foreach { f =>
      throw new HBaseSQLException(
        s"$statement: HBase table '$table' has no column family '$f' (it has ${present.toSeq.sorted.mkString(", ")})"
      )
    }
  }
}
