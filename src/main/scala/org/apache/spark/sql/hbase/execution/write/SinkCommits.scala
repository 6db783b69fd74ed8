// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import java.util.Locale

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{CheckAndMutate, Delete, Get, Put, Scan}
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.{HBaseSQLException, Utf8}
import org.apache.spark.sql.hbase.metadata.MetadataTables
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}

/**
 * The last batch a streaming query committed into a table, kept next to the table definitions,
 * in the catalog's meta table, so a query restarted from its checkpoint finds it on any driver.
 * A row per (query, table): `0x00 "sink" 0x00 <query id> 0x00 <lower-cased table>`, which no SQL
 * table name can be, holding versioned JSON `{"version":1,"queryId":..,"table":..,"batchId":n}` in a
 * column the catalog's own reads do not ask for. The query id is the one Spark keeps in the
 * checkpoint, the same on every restart.
 */
final class SinkCommits(cluster: HBaseClusterConf, metaTable: String) {
  import SinkCommits._

  /** The stored record, as bytes (to swap it atomically) and its batch id. */
  def last(queryId: String, table: String): Option[(Array[Byte], Long)] = withMeta { t =>
    Option(t.get(new Get(rowKey(queryId, table)).addColumn(Family, Qualifier)).getValue(Family, Qualifier))
      .map(bytes => (bytes, batchIdOf(bytes, queryId, table)))
  }

  /**
   * Records `batchId` as committed, if the record is still `previous`; fails naming the query when
   * another run of it committed meanwhile.
   */
  def record(queryId: String, table: String, previous: Option[Array[Byte]], batchId: Long): Unit = withMeta { t =>
    val row = rowKey(queryId, table)
    val json = mapper.createObjectNode()
      .put("version", FormatVersion).put("queryId", queryId).put("table", table.toLowerCase(Locale.ROOT))
      .put("batchId", batchId)
    val put = new Put(row).addColumn(Family, Qualifier, Utf8.bytes(mapper.writeValueAsString(json)))
    val check = previous.fold(CheckAndMutate.newBuilder(row).ifNotExists(Family, Qualifier))(
      CheckAndMutate.newBuilder(row).ifEquals(Family, Qualifier, _)
    )
    if (!t.checkAndMutate(check.build(put)).isSuccess) {
      throw new HBaseSQLException(s"Streaming query $queryId into HBase table '$table': another run of the same " +
        s"query (same checkpoint) committed into the table while batch $batchId was written; run one at a time")
    }
  }

  /**
   * Removes every query's record of `table`, as dropping it does: a query that wrote into the
   * table it named then finds no record, and its next batch fails asking for a new checkpoint,
   * rather than going on into a new table of the same name as if nothing had happened.
   */
  def forgetTable(table: String): Unit = withMeta { t =>
    val suffix = Utf8.bytes(s"\u0000${table.toLowerCase(Locale.ROOT)}")
    val scan = new Scan().withStartRow(Prefix).withStopRow(PrefixEnd).addColumn(Family, Qualifier)
    val scanner = t.getScanner(scan)
    val rows =
      try scanner.iterator().asScala.map(_.getRow).filter(endsWith(_, suffix)).toList
      finally scanner.close()
    // HTable.delete takes the deletes it made out of the list it is given.
    if (rows.nonEmpty)
      t.delete(new java.util.ArrayList(rows.map(row => new Delete(row).addColumns(Family, Qualifier)).asJava))
  }

  private def endsWith(row: Array[Byte], suffix: Array[Byte]): Boolean =
    row.length >= suffix.length &&
      Bytes.equals(row, row.length - suffix.length, suffix.length, suffix, 0, suffix.length)

  private def withMeta[T](body: org.apache.hadoop.hbase.client.Table => T): T =
    HBaseConnections.withConnection(cluster) { connection =>
      val name = TableName.valueOf(metaTable)
      if (!ensured.contains((cluster, metaTable))) {
        MetadataTables.ensure(connection, name, Family, cluster)
        ensured.add((cluster, metaTable))
      }
      val t = connection.getTable(name)
      try body(t)
      finally t.close()
    }
}

object SinkCommits {
  val FormatVersion = 1
  // The catalog meta table's family; the catalog reads only its own qualifiers.
  private val Family = Utf8.bytes("d")
  private val Qualifier = Utf8.bytes("sinkCommit")
  private val mapper = new ObjectMapper()
  // Meta tables known to exist: every batch reads and writes its record, without asking again.
  private val ensured = java.util.concurrent.ConcurrentHashMap.newKeySet[(HBaseClusterConf, String)]()

  private val Prefix = Utf8.bytes("\u0000sink\u0000")
  private val PrefixEnd = Utf8.bytes("\u0000sink\u0001") // the first row key past every record

  def rowKey(queryId: String, table: String): Array[Byte] =
    Bytes.add(Prefix, Utf8.bytes(s"$queryId\u0000${table.toLowerCase(Locale.ROOT)}"))

  private def batchIdOf(bytes: Array[Byte], queryId: String, table: String): Long = {
    val broken = s"Streaming query $queryId into HBase table '$table': its commit record in the catalog"
    val node =
      try mapper.readTree(Utf8.string(bytes))
      catch { case e: Exception => throw new HBaseSQLException(s"$broken is not JSON: ${e.getMessage}", Some(e)) }
    val version = Option(node.get("version")).filter(_.canConvertToInt).map(_.asInt).getOrElse(0)
    if (version < 1 || version > FormatVersion) {
      throw new HBaseSQLException(s"$broken has format version $version; this plugin reads versions 1 to " +
        s"$FormatVersion (was it written by a newer plugin?)")
    }
    Option(node.get("batchId")).filter(_.canConvertToLong).map(_.asLong).getOrElse(
      throw new HBaseSQLException(s"$broken has no batchId")
    )
  }
}
