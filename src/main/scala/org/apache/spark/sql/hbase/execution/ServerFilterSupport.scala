package org.apache.spark.sql.hbase.execution

import java.io.IOException

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan
import org.apache.hadoop.hbase.filter.Filter

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.Causes
import org.apache.spark.sql.hbase.catalog.{HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.{KeyBox, Operand, SkipScanFilter}

/**
 * Whether a table's region servers can run the server jar's filter. It is probed once per table
 * (again after `spark.sql.hbase.partition.expiration`) with a scan that matches nothing; without
 * the jar, scans fall back to HBase's own filters and Spark, with a one-line warning.
 */
object ServerFilterSupport extends Logging {
  private final case class Checked(missing: Option[String], atMs: Long)
  private val checked = new java.util.concurrent.ConcurrentHashMap[(HBaseClusterConf, HBaseTableName), Checked]()

  def available(cluster: HBaseClusterConf, table: HBaseTableDef, maxAgeSeconds: Long): Boolean = {
    val now = System.currentTimeMillis()
    checked.compute(
      (cluster, table.hbaseTable),
      (_, current) =>
        if (current != null && now - current.atMs < maxAgeSeconds * 1000) current
        else {
          val missing = probe(cluster, table.hbaseTable, matchingNothing(table))
          missing.foreach { reason =>
            logWarning(
              s"HBase table ${table.hbaseTable}: region servers cannot run ${classOf[SkipScanFilter].getSimpleName} " +
                s"($reason); reading with MultiRowRangeFilter and filtering in Spark. See 'Deploying the server jar' in docs/deployment.md."
            )
          }
          Checked(missing, now)
        }
    ).missing.isEmpty
  }

  /** None when the table's region servers ran `filter`; otherwise why they could not. */
  def probe(cluster: HBaseClusterConf, table: HBaseTableName, filter: Filter): Option[String] =
    HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(TableName.valueOf(table.namespace, table.name))
      try {
        val scanner = htable.getScanner(new Scan().setFilter(filter).setLimit(1).setCaching(1))
        try { scanner.next(); None }
        finally scanner.close()
      } catch {
        case e: IOException if refused(e) => Some(Causes.rootMessage(e))
      } finally htable.close()
    }

  /** A filter of no key boxes: the region server loads it and stops at the first row. */
  private def matchingNothing(table: HBaseTableDef): Filter =
    new SkipScanFilter(
      KeyCodec.forTable(table).sliceLayout,
      Array.empty[KeyBox],
      Array.empty[Operand],
      null,
      null,
      null
    )

  /**
   * Whether a region server refused the server jar's filter: it has no such class, or another
   * version of it that cannot read the filter's bytes.
   */
  def refused(e: Throwable): Boolean = Causes.of(e).exists { c =>
    val message = Option(c.getMessage).getOrElse("")
    c.isInstanceOf[ClassNotFoundException] || message.contains(classOf[SkipScanFilter].getName) ||
    message.contains("ClassNotFoundException") || message.contains("DeserializationException")
  }
}
