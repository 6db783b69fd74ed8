// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.metadata

import java.util.Locale

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.{CompareOperator, TableName}
import org.apache.hadoop.hbase.client._
import org.apache.hadoop.hbase.filter.{BinaryComparator, ValueFilter}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLConf, HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}

/**
 * Table definitions, one row per SQL table in an HBase meta table, so every session and every
 * Spark application that talks to the cluster sees the same tables. The row key is the lower-cased
 * SQL name; one cell holds versioned JSON, and a second a random tag that every write of the row
 * changes, which also tells a row that is there from one that is not when a read leaves the
 * unchanged definition out (see [[entrySince]]).
 */
final class TableDefinitionStore(val cluster: HBaseClusterConf, val metaTable: TableName) extends Logging {
  import TableDefinitionStore._

  /** The definition of `name`; fails, naming the table and what is wrong, when its entry is broken. */
  def get(name: String): Option[HBaseTableDef] = entry(name).map(_.definition)

  /** The catalog row of `name`, readable or not. */
  def entry(name: String): Option[CatalogEntry] = withMeta { table =>
    val row = rowKey(name)
    Option(table.get(new Get(row).addColumn(Family, Qualifier)).getValue(Family, Qualifier))
      .map(CatalogEntry.read(row, _))
  }

  /**
   * The catalog row of `name` as it is now, told against `known`, the definition's stored bytes as
   * the caller last read them. The region server compares: it returns the definition only when it
   * differs, so an unchanged row costs a Get whose answer is the row's tag alone. Any writer's
   * change is seen, an older plugin's too, which writes no tag.
   */
  def entrySince(name: String, known: Option[Array[Byte]]): RowSince = withMeta { table =>
    val row = rowKey(name)
    val get = new Get(row).addColumn(Family, Qualifier).addColumn(Family, Tag)
    known.foreach(bytes => get.setFilter(new ValueFilter(CompareOperator.NOT_EQUAL, new BinaryComparator(bytes))))
    val result = table.get(get)
    Option(result.getValue(Family, Qualifier)) match {
      case Some(value) => RowSince.Changed(value, CatalogEntry.read(row, value))
      case None if known.isDefined && result.containsColumn(Family, Tag) => RowSince.Unchanged
      // No row, or (with no tag to tell by) a row that may be the known one: the caller reads it whole.
      case None => RowSince.Missing
    }
  }

  /** Every catalog row, readable or not. */
  def entries(): Seq[CatalogEntry] = withMeta { table =>
    val scanner = table.getScanner(new Scan().addColumn(Family, Qualifier))
    try scanner.iterator().asScala.map(r => CatalogEntry.read(r.getRow, r.getValue(Family, Qualifier))).toSeq
    finally scanner.close()
  }

  /** The definitions over `hbaseTable`; None when a broken entry might be one of them. */
  def over(hbaseTable: HBaseTableName): Option[Seq[HBaseTableDef]] = {
    val all = entries()
    if (all.exists(_.readable.isEmpty)) None else Some(all.flatMap(_.readable).filter(_.hbaseTable == hbaseTable))
  }

  /** Atomically adds a definition; returns false when the name is already taken. */
  def create(definition: HBaseTableDef): Boolean = withMeta { table =>
    val row = rowKey(definition.name)
    table.checkAndMutate(CheckAndMutate.newBuilder(row).ifNotExists(Family, Qualifier).build(written(row, definition)))
      .isSuccess && { keepPackedSlots(table, definition); true }
  }

  /** Atomically swaps a definition for a new one; returns false when another session changed it first. */
  def replace(current: HBaseTableDef, updated: HBaseTableDef): Boolean = withMeta { table =>
    val row = rowKey(current.name)
    table.checkAndMutate(CheckAndMutate.newBuilder(row)
      .ifEquals(Family, Qualifier, Utf8.bytes(TableDefJson.toJson(current))).build(written(row, updated))).isSuccess &&
    { keepPackedSlots(table, updated); true }
  }

  /**
   * The slots of `hbaseTable`'s packed families as its last packed mapping had them, kept after the
   * mapping is dropped ([[PackedSlotsRecord]]); None when no packed mapping was stored, or since PURGE.
   */
  def packedSlots(hbaseTable: HBaseTableName): Option[Map[String, Seq[String]]] = withMeta { table =>
    val row = PackedSlotsRecord.rowKey(hbaseTable)
    Option(table.get(new Get(row).addColumn(Family, PackedSlots)).getValue(Family, PackedSlots))
      .map(bytes => PackedSlotsRecord.fromJson(hbaseTable, Utf8.string(bytes)))
  }

  /** Forgets the slots of `hbaseTable`, as deleting it does. */
  def forgetPackedSlots(hbaseTable: HBaseTableName): Unit = withMeta { table =>
    table.delete(new Delete(PackedSlotsRecord.rowKey(hbaseTable)))
  }

  // After the definition, and never failing the statement that wrote it (a user let write definitions
  // only, a region server gone): the record is a fallback for mappings made after a DROP TABLE.
  private def keepPackedSlots(table: Table, definition: HBaseTableDef): Unit = if (definition.isPacked) {
    val json = PackedSlotsRecord.toJson(definition.hbaseTable, definition.packedSlots)
    try table.put(new Put(PackedSlotsRecord.rowKey(definition.hbaseTable)).addColumn(
        Family,
        PackedSlots,
        Utf8.bytes(json)
      ))
    catch {
      case e: java.io.IOException =>
        logWarning(s"Table '${definition.name}': the catalog's record of the packed slots of HBase table " +
          s"'${definition.hbaseTable}' was not written (${Causes.rootMessage(e)}); a table mapped over it after DROP TABLE " +
          "will need its layout named")
    }
  }

  /** A definition as stored, under a tag no other write of the row had. */
  private def written(row: Array[Byte], definition: HBaseTableDef): Put = new Put(row)
    .addColumn(Family, Qualifier, Utf8.bytes(TableDefJson.toJson(definition)))
    .addColumn(Family, Tag, Bytes.toBytes(java.util.concurrent.ThreadLocalRandom.current().nextLong()))

  /**
   * Removes only the mapping; returns the entry removed, None when there was none. An entry
   * changed by another session meanwhile is read again: what is removed is exactly what is
   * returned, so its range indexes can be forgotten. A broken entry is removed too.
   */
  def drop(name: String): Option[CatalogEntry] = withMeta { table =>
    val row = rowKey(name)
    def attempt(n: Int): Option[CatalogEntry] =
      Option(table.get(new Get(row).addColumn(Family, Qualifier)).getValue(Family, Qualifier)).flatMap { current =>
        if (
          table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(Family, Qualifier, current)
            .build(new Delete(row))).isSuccess
        ) Some(CatalogEntry.read(row, current))
        else if (n < 10) attempt(n + 1)
        else
          throw new HBaseSQLException(s"DROP TABLE $name: table '$name' keeps changing in other sessions; run it again")
      }
    attempt(0)
  }

  /** Removes `definition` only if it is still the stored one: a failed CREATE withdraws its own claim, never a newer table. */
  def withdraw(definition: HBaseTableDef): Boolean = withMeta { table =>
    val row = rowKey(definition.name)
    table.checkAndMutate(CheckAndMutate.newBuilder(row)
      .ifEquals(Family, Qualifier, Utf8.bytes(TableDefJson.toJson(definition))).build(new Delete(row))).isSuccess
  }

  /** The time of the region server that holds the catalog, in milliseconds: the timestamp HBase gives a write. */
  def serverTime(): Long = withMeta { table =>
    val result = table.increment(new Increment(ClockRow).addColumn(Family, Clock, 1L))
    result.rawCells().head.getTimestamp
  }

  /**
   * Runs `body` holding the catalog's lock named `name`, which every session of the cluster shares:
   * a row of the meta table that one holder at a time writes, under a lease of `leaseMillis` after
   * which another may take it (its holder died). The row has no definition, so no listing sees it.
   * Waits at most `waitMillis` for the lock, then fails naming `statement`.
   */
  def locked[T](name: String, statement: String, leaseMillis: Long = 300000L, waitMillis: Long = 330000L)(
      body: => T
  ): T = {
    val row = Bytes.add(LockPrefix, Utf8.bytes(name))
    val mine = Bytes.toBytes(java.util.UUID.randomUUID().toString)
    def take(now: Long, seen: Option[Array[Byte]]): Boolean = withMeta { table =>
      val lease = new Put(row).addColumn(Family, Lock, Bytes.add(Bytes.toBytes(now + leaseMillis), mine))
      val condition = CheckAndMutate.newBuilder(row)
      val guarded = seen.fold(condition.ifNotExists(Family, Lock))(v => condition.ifEquals(Family, Lock, v))
      table.checkAndMutate(guarded.build(lease)).isSuccess
    }
    def holder(): Option[Array[Byte]] =
      withMeta(t => Option(t.get(new Get(row).addColumn(Family, Lock)).getValue(Family, Lock)))
    val deadline = System.currentTimeMillis() + waitMillis
    var pause = 20L
    var held = false
    while (!held) {
      val now = System.currentTimeMillis()
      held = holder() match {
        case None => take(now, None)
        case Some(v) if Bytes.toLong(v) < now => take(now, Some(v)) // its lease ran out
        case Some(_) if now > deadline =>
          throw new HBaseSQLException(s"$statement: another session has held the lock '$name' for longer than " +
            s"${waitMillis / 1000} s; run it again once that session's statement has ended")
        case Some(_) => false
      }
      if (!held) {
        Thread.sleep(pause) // a wait for another session, not for a condition this one controls
        pause = math.min(pause * 2, 1000L)
      }
    }
    try body
    finally withMeta { table =>
        val current = Option(table.get(new Get(row).addColumn(Family, Lock)).getValue(Family, Lock))
        current.filter(v => Bytes.equals(v, 8, v.length - 8, mine, 0, mine.length)).foreach { v =>
          table.checkAndMutate(CheckAndMutate.newBuilder(row).ifEquals(Family, Lock, v).build(new Delete(row)))
        }
      }
  }

  private def withMeta[T](body: Table => T): T = HBaseConnections.withConnection(cluster) { connection =>
    ensureMetaTable(connection)
    val table = connection.getTable(metaTable)
    try body(table)
    finally table.close()
  }

  @volatile private var metaTableReady = false

  private def ensureMetaTable(connection: Connection): Unit = if (!metaTableReady) {
    MetadataTables.ensure(connection, metaTable, Family, cluster)
    metaTableReady = true
  }
}

/** A catalog row as [[TableDefinitionStore.entrySince]] found it. */
sealed trait RowSince

object RowSince {
  case object Unchanged extends RowSince
  final case class Changed(stored: Array[Byte], entry: CatalogEntry) extends RowSince
  case object Missing extends RowSince
}

object TableDefinitionStore {
  private val Family = Utf8.bytes("d")
  private val Qualifier = Utf8.bytes("table")
  private val Tag = Utf8.bytes("tag")
  private val Lock = Utf8.bytes("lock")
  private val Clock = Utf8.bytes("clock")
  private val PackedSlots = Utf8.bytes("packedSlots")
  // Rows that hold no definition start with a byte no table name lowers to, and lack the definition cell.
  private val ClockRow = Utf8.bytes("\u0000clock")
  private val LockPrefix = Utf8.bytes("\u0000lock:")

  def rowKey(name: String): Array[Byte] = Utf8.bytes(name.toLowerCase(Locale.ROOT))
}

/** The catalog a session talks to, chosen by its HBase settings; one instance per cluster. */
object TableDefinitionStores {
  import org.apache.spark.sql.SparkSession

  private val catalogs = scala.collection.concurrent.TrieMap.empty[(HBaseClusterConf, String), TableDefinitionStore]

  def of(session: SparkSession): TableDefinitionStore = of(HBaseClusterConf.fromSession(session), metaTable(session))

  /** The HBase table of a session's definitions. */
  def metaTable(session: SparkSession): String =
    session.conf.get(HBaseSQLConf.CatalogTable.key, HBaseSQLConf.CatalogTable.defaultValueString)

  def of(cluster: HBaseClusterConf, metaTable: String): TableDefinitionStore =
    catalogs.getOrElseUpdate((cluster, metaTable), new TableDefinitionStore(cluster, TableName.valueOf(metaTable)))
}
