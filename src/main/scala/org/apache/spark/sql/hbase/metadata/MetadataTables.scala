// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import org.apache.hadoop.hbase.{NamespaceDescriptor, NamespaceExistException, TableExistsException, TableName}
import org.apache.hadoop.hbase.client.{ColumnFamilyDescriptorBuilder, Connection, TableDescriptorBuilder}

import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseUnreachable}

/** Our own HBase tables (the catalog, the range index table): created with their namespace on first use. */
object MetadataTables {
  def ensure(connection: Connection, name: TableName, family: Array[Byte], cluster: HBaseClusterConf): Unit = {
    val admin = connection.getAdmin
    try {
      val namespace = name.getNamespaceAsString
      if (!admin.listNamespaces().contains(namespace)) {
        try admin.createNamespace(NamespaceDescriptor.create(namespace).build())
        catch { case _: NamespaceExistException => }
      }
      if (!admin.tableExists(name)) {
        try admin.createTable(TableDescriptorBuilder.newBuilder(name)
            .setColumnFamily(ColumnFamilyDescriptorBuilder.of(family)).build())
        catch { case _: TableExistsException => }
      }
    } catch HBaseUnreachable.translate(cluster).orElse[Throwable, Nothing] {
        case e: java.io.IOException =>
          throw new HBaseSQLException(
            s"Cannot open the table $name on HBase at ${cluster.zookeeperAddress}: ${e.getMessage}",
            Some(e)
          )
      }
    finally admin.close()
  }
}
