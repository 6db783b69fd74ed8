package org.apache.spark.sql.hbase.execution.command

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{Admin, ColumnFamilyDescriptorBuilder, TableDescriptorBuilder}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.HBaseSqlException
import org.apache.spark.sql.hbase.catalog.{HBaseTableDef, SessionCatalogs}
import org.apache.spark.sql.hbase.codec.Utf8
import org.apache.spark.sql.hbase.connection.HBaseConnections

/**
 * CREATE TABLE ... MAPPED BY: creates the HBase table with the mapped families when it is missing,
 * then records the mapping. If recording fails, an HBase table made here is removed again.
 */
case class CreateHBaseTableCommand(definition: HBaseTableDef, ifNotExists: Boolean)
  extends LeafRunnableCommand with Logging {

  override def run(session: SparkSession): Seq[Row] = {
    val catalog = SessionCatalogs.of(session)
    if (catalog.get(definition.name).isDefined) {
      if (ifNotExists) return Seq.empty
      throw new HBaseSqlException(s"CREATE TABLE ${definition.name}: table '${definition.name}' already exists")
    }
    val hbaseName = TableName.valueOf(definition.hbaseTable.namespace, definition.hbaseTable.name)
    HBaseConnections.withConnection(catalog.cluster) { connection =>
      val admin = connection.getAdmin
      try {
        val createdHere = ensureHBaseTable(admin, hbaseName)
        val recorded = try catalog.create(definition) catch {
          case e: Throwable => if (createdHere) dropQuietly(admin, hbaseName); throw e
        }
        if (!recorded) {
          if (createdHere) dropQuietly(admin, hbaseName)
          throw new HBaseSqlException(s"CREATE TABLE ${definition.name}: table '${definition.name}' already exists")
        }
      } finally admin.close()
    }
    Seq.empty
  }

  /** Returns true when this statement created the HBase table. */
  private def ensureHBaseTable(admin: Admin, name: TableName): Boolean = {
    if (admin.tableExists(name)) {
      val existing = admin.getDescriptor(name).getColumnFamilyNames
      val present = scala.jdk.CollectionConverters.SetHasAsScala(existing).asScala.map(Utf8.string).toSet
      definition.families.filterNot(present.contains).headOption.foreach { f =>
        throw new HBaseSqlException(
          s"CREATE TABLE ${definition.name}: HBase table '${definition.hbaseTable}' has no column family '$f' " +
            s"(it has ${present.toSeq.sorted.mkString(", ")})")
      }
      false
    } else {
      val namespace = name.getNamespaceAsString
      if (!admin.listNamespaces().contains(namespace)) {
        throw new HBaseSqlException(s"CREATE TABLE ${definition.name}: HBase namespace '$namespace' does not exist")
      }
      val builder = TableDescriptorBuilder.newBuilder(name)
      definition.families.foreach(f => builder.setColumnFamily(ColumnFamilyDescriptorBuilder.of(f)))
      admin.createTable(builder.build())
      true
    }
  }

  private def dropQuietly(admin: Admin, name: TableName): Unit =
    try { admin.disableTable(name); admin.deleteTable(name) }
    catch { case e: Exception => logWarning(s"Could not remove HBase table $name after a failed CREATE TABLE", e) }
}
