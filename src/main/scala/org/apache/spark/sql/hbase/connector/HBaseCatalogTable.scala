// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connector

import java.util

import org.apache.spark.sql.connector.catalog.{SupportsWrite, Table, TableCapability}
import org.apache.spark.sql.connector.write.{LogicalWriteInfo, WriteBuilder}
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.execution.write.HBaseSinkWriteBuilder
import org.apache.spark.sql.types.StructType

/**
 * An HBase table as Spark's catalog API hands it over. It only carries the definition: the
 * analyzer turns reads of it into our relation and writes into our write command
 * (`analysis.ResolveHBaseRelations`), so Spark never scans or
 * writes it itself, but for a streaming query's writes (`toTable("hbase.t")`), which go through
 * our sink's write (`streaming.HBaseSinkWrite`). It accepts any schema so that our own rules line
 * an INSERT's columns up, as for one-part names (write times left out).
 */
final case class HBaseCatalogTable(definition: HBaseTableDef, cluster: HBaseClusterConf, asOf: Option[Long])
    extends Table with SupportsWrite {

  override def name(): String = definition.name

  override def schema(): StructType = definition.schema

  override def capabilities(): util.Set[TableCapability] =
    util.EnumSet.of(
      TableCapability.BATCH_READ,
      TableCapability.BATCH_WRITE,
      TableCapability.STREAMING_WRITE,
      TableCapability.ACCEPT_ANY_SCHEMA
    )

  /** Only streaming writes (`toTable("hbase.t")`) get here; batch writes are our command's. */
  override def newWriteBuilder(info: LogicalWriteInfo): WriteBuilder =
    new HBaseSinkWriteBuilder(definition, cluster, info)
}
