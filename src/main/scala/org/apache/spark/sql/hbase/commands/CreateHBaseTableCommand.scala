// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import java.io.IOException

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{MemoryCompactionPolicy, TableExistsException, TableName}
import org.apache.hadoop.hbase.client.{
  Admin, ColumnFamilyDescriptorBuilder, Connection, CoprocessorDescriptorBuilder, TableDescriptorBuilder
}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.{Row, SparkSession}
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.execution.command.LeafRunnableCommand
import org.apache.spark.sql.hbase.common.{DescribedInExplain, HBaseSQLConf, HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.{FamilyOptions, HBaseTableDef, TableDefinitionStore, TableLayout}
import org.apache.spark.sql.hbase.connection.HBaseConnections
import org.apache.spark.sql.hbase.connector.HBaseTableIdent
import org.apache.spark.sql.hbase.execution.write.PackedUpdates
import org.apache.spark.sql.hbase.server.ServerJar

/**
 * CREATE TABLE ... MAPPED BY. The name is claimed in the catalog first, atomically, so of two
 * sessions racing for one name exactly one wins; then the HBase table is created with the mapped
 * families and split points when it is missing, or checked when it exists. If that fails, the
 * claim is withdrawn, leaving the catalog as it was. A key-only table over an existing HBase table
 * keeps its marker cells in that table's first family.
 *
 * Unless the statement named a layout (`layoutNamed`), `definition` is packed where packed can
 * hold it; a table whose HBase table this makes stays so where spark.sql.hbase.create.layout says
 * PACKED, and one mapped over an existing HBase table reads its rows as they are stored (see
 * `overExisting`).
 */
case class CreateHBaseTableCommand(
    definition: HBaseTableDef,
    ifNotExists: Boolean,
    splitKeys: Seq[Array[Byte]] = Nil,
    familyOptions: Seq[FamilyOptions] = Nil,
    catalogName: Option[String] = None,
    layoutNamed: Boolean = true
) extends LeafRunnableCommand
    with DescribedInExplain[LogicalPlan]
    with Logging {

  override def simpleString(maxFields: Int): String =
    s"$nodeName ${definition.described}${if (ifNotExists) " if not exists" else ""}, " +
      s"LAYOUT ${definition.layout.toString.toUpperCase(java.util.Locale.ROOT)}, ${splitKeys.size + 1} regions"

  override def run(session: SparkSession): Seq[Row] = {
    create(session)
    Seq.empty
  }

  /** Creates the table; false when it exists already and IF NOT EXISTS was given. */
  def create(session: SparkSession): Boolean = {
    val catalog = HBaseTableIdent(catalogName, definition.name).store(session, s"CREATE TABLE ${definition.name}")
    // IF NOT EXISTS on a name taken already does nothing, whatever HBase table it names.
    val checked = !(ifNotExists && catalog.entry(definition.name).isDefined)
    val packsNewTables = session.sessionState.conf.getConf(HBaseSQLConf.CreateLayout) == TableLayout.Packed.name
    val newTable = if (layoutNamed || packsNewTables) definition else definition.asCells
    val stored = HBaseConnections.withConnection(catalog.cluster)(asStored(_, checked, newTable, catalog))
    if (!catalog.create(stored)) {
      if (ifNotExists) return false
      throw new HBaseSQLException(s"CREATE TABLE ${definition.name}: table '${definition.name}' already exists")
    }
    try {
      val created = HBaseConnections.withConnection(catalog.cluster) { connection =>
        val admin = connection.getAdmin
        try ensureHBaseTable(admin, stored, session.sessionState.conf.getConf(HBaseSQLConf.Coprocessor))
        finally admin.close()
      }
      // Another session made or deleted the HBase table between our look and our create: the table
      // it made has its rows a cell a column, unless the statement said otherwise.
      if (created != stored.ownsHBaseTable) {
        val mapped = if (created || layoutNamed) stored else stored.asCells
        catalog.replace(stored, mapped.copy(ownsHBaseTable = created))
      }
    } catch {
      case e: Throwable =>
        // Only our own claim: another session may have dropped it and created the name again.
        catalog.withdraw(stored)
        throw e
    }
    true
  }

  /**
   * The definition to store: whether CREATE TABLE makes the HBase table (then `newTable`), its
   * layout, and a key-only table's marker family.
   */
  private def asStored(
      connection: Connection,
      checked: Boolean,
      newTable: HBaseTableDef,
      catalog: TableDefinitionStore
  ): HBaseTableDef = {
    val name = TableName.valueOf(definition.hbaseTable.namespace, definition.hbaseTable.name)
    val admin = connection.getAdmin
    try {
      if (!admin.tableExists(name)) newTable.copy(ownsHBaseTable = true)
      else {
        // Before the name is claimed: a claim withdrawn after another session altered it would stay.
        if (checked) checkExisting(admin)
        if (splitKeys.nonEmpty) {
          logWarning(
            s"CREATE TABLE ${definition.name}: HBase table '${definition.hbaseTable}' exists; SPLIT ON is ignored"
          )
        }
        // Unchecked (IF NOT EXISTS on a name taken), the claim fails unless the name was dropped meanwhile.
        val mapped = if (checked) overExisting(admin, catalog) else if (layoutNamed) definition else definition.asCells
        if (!mapped.isKeyOnly) mapped
        else mapped.copy(markerFamily =
          admin.getDescriptor(name).getColumnFamilyNames.asScala.toSeq.map(Utf8.string).sorted.headOption
        )
      }
    } finally admin.close()
  }

  /**
   * The definition over an existing HBase table, whose rows are read as they are stored: a family
   * another table maps packed is read packed, in that table's slots (a slot says which column a
   * value is), and so is one the last packed mapping of the HBase table had, dropped since; an HBase
   * table made for packed rows (it has the merge observer) whose slots nothing tells needs the
   * statement to name the layout; otherwise a cell a column, unless the statement says LAYOUT PACKED.
   */
  private def overExisting(admin: Admin, catalog: TableDefinitionStore): HBaseTableDef = {
    def refuse(problem: String) = throw new HBaseSQLException(
      s"CREATE TABLE ${definition.name}: HBase table '${definition.hbaseTable}' $problem"
    )
    val others = catalog.over(definition.hbaseTable).map(_.filterNot(_.name.equalsIgnoreCase(definition.name)))
    val mapped = others.toSeq.flatten.filter(_.isPacked).flatMap(t =>
      t.packedSlots.map { case (f, slots) =>
        f -> (s"table '${t.name}'", slots)
      }
    ).toMap
    // Only with no mapping left: the mappings' own slots are the newer. A record this version cannot
    // read tells nothing: the statement then names the layout, as for a table without one.
    val recorded: Map[String, Seq[String]] =
      if (!others.exists(_.isEmpty)) Map.empty
      else
        try catalog.packedSlots(definition.hbaseTable).getOrElse(Map.empty)
        catch { case e: HBaseSQLException => logWarning(e.getMessage); Map.empty }
    val packedBy: Map[String, (String, Seq[String])] =
      recorded.map { case (f, slots) => f -> ("its last packed mapping", slots) } ++ mapped
    definition.families.find(packedBy.contains) match {
      case Some(family) if !definition.isPacked =>
        refuse(
          s"keeps family '$family' packed, as ${packedBy(family)._1} maps it, and this table cannot read " +
            "packed cells: leave LAYOUT out or say LAYOUT PACKED, in the Binary format"
        )
      case Some(_) =>
        val slots = definition.packedSlots.map { case (family, qualifiers) =>
          packedBy.get(family) match {
            case Some((source, known)) =>
              qualifiers.find(q => !known.contains(q)).foreach(q =>
                refuse(
                  s"keeps family '$family' packed, in the slots $source gives it (${known.mkString(", ")}), " +
                    s"and none holds qualifier '$q'"
                )
              )
              family -> known
            case None => family -> qualifiers
          }
        }
        definition.copy(layout = TableLayout.Packed, packedSlots = slots)
      case None if layoutNamed => definition
      case None =>
        val madeForPacked = others.exists(_.isEmpty) && admin.getDescriptor(
          TableName.valueOf(definition.hbaseTable.namespace, definition.hbaseTable.name)
        ).hasCoprocessor(ServerJar.PACKED_MERGE_OBSERVER)
        if (madeForPacked && definition.isPacked) {
          refuse(
            "was made for packed rows and neither a table nor the catalog's record tells their slots, so which " +
              "column each packed value is cannot be told: say LAYOUT PACKED with COLS in the order of the table " +
              "that made it (SHOW CREATE TABLE gave it), or LAYOUT CELLS if its rows are a cell a column"
          )
        }
        definition.asCells
    }
  }

  /** Makes the HBase table when it is missing, else checks it; true when this call made it. */
  private def ensureHBaseTable(admin: Admin, stored: HBaseTableDef, aggregator: Boolean): Boolean = {
    val name = TableName.valueOf(stored.hbaseTable.namespace, stored.hbaseTable.name)
    val created = !admin.tableExists(name) && {
      val namespace = name.getNamespaceAsString
      if (!admin.listNamespaces().contains(namespace)) {
        throw new HBaseSQLException(s"CREATE TABLE ${definition.name}: HBase namespace '$namespace' does not exist")
      }
      def create(withAggregator: Boolean): Boolean = {
        val builder = TableDescriptorBuilder.newBuilder(name)
        (stored.families ++ stored.markerFamily).distinct.foreach { f =>
          val family =
            FamilySettings.applied(
              ColumnFamilyDescriptorBuilder.newBuilder(Utf8.bytes(f)),
              familyOptions.find(_.family == f)
            )
          // An UPDATE rewrites a packed row's whole cell: the memstore drops the versions beyond the family's as it
          // fills, where every read of the row, the UPDATE's merge too, would otherwise skip them until a flush.
          if (stored.isPacked) family.setInMemoryCompaction(MemoryCompactionPolicy.EAGER)
          builder.setColumnFamily(family.build())
        }
        if (withAggregator) builder.setCoprocessor(ServerJar.AGGREGATE_OBSERVER)
        // UPDATEs merge their new values into packed cells in the region servers, a region's rows at once.
        if (withAggregator && stored.isPacked) {
          builder.setCoprocessor(CoprocessorDescriptorBuilder.newBuilder(ServerJar.PACKED_MERGE_OBSERVER)
            .setPriority(ServerJar.PACKED_MERGE_PRIORITY).build())
          builder.setCoprocessor(PackedUpdates.RegionBatchEndpoint)
        }
        try {
          if (splitKeys.isEmpty) admin.createTable(builder.build())
          else admin.createTable(builder.build(), splitKeys.toArray)
          true
        } catch {
          case _: TableExistsException => false // another session created it a moment ago
          // The master checks that it can load a table's coprocessors: without the server jar it cannot.
          case e: IOException
              if withAggregator && Option(e.getMessage).exists(_.contains(ServerJar.AGGREGATE_OBSERVER)) =>
            logWarning(
              s"CREATE TABLE ${definition.name}: the HBase master cannot load ${ServerJar.AGGREGATE_OBSERVER}; " +
                "creating the table without it, so aggregates are computed in Spark. See 'Deploying the server jar' in docs/deployment.md."
            )
            create(withAggregator = false)
        }
      }
      create(withAggregator = aggregator)
    }
    // Checked before the name was claimed too; again, as another session may have made it since.
    if (!created) checkExisting(admin)
    created
  }

  /** Refuses an existing HBase table this definition cannot map as it is. */
  private def checkExisting(admin: Admin): Unit = {
    if (familyOptions.nonEmpty) {
      throw new HBaseSQLException(
        s"CREATE TABLE ${definition.name}: HBase table '${definition.hbaseTable}' exists; " +
          "FAMILIES sets up the families of a table CREATE TABLE makes. Change an existing table's families with the HBase shell's alter"
      )
    }
    MappedFamilies.requirePresent(
      admin,
      definition.hbaseTable,
      definition.families,
      s"CREATE TABLE ${definition.name}"
    )
  }
}
