package org.apache.spark.sql.hbase.execution

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.catalog.{HBaseTableDef, HBaseTableName}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.{AggregateBatch, AggregateFunction, AggregateSpec, Operand}

/**
 * Whether a table's region servers run the aggregation coprocessor, probed once per table (again
 * after `spark.sql.hbase.partition.expiration`): a scan that asks for a count capped at one group
 * returns a batch from the first row where the coprocessor runs, and the row itself where it does
 * not. An empty table proves nothing, so that answer is not kept.
 */
object AggregatorSupport extends Logging {
  private final case class Checked(available: Boolean, atMs: Long)
  private val checked = new java.util.concurrent.ConcurrentHashMap[(HBaseClusterConf, HBaseTableName), Checked]()

  def available(cluster: HBaseClusterConf, table: HBaseTableDef, maxAgeSeconds: Long): Boolean = {
    val now = System.currentTimeMillis()
    val current = checked.get((cluster, table.hbaseTable))
    if (current != null && now - current.atMs < maxAgeSeconds * 1000) current.available
    else probe(cluster, table) match {
      case Some(answer) =>
        if (!answer) logWarning(
          s"HBase table ${table.hbaseTable}: region servers do not run the spark-hbase-sql " +
            "aggregation coprocessor; aggregates are computed in Spark. See 'Deploying the server jar' in docs/deployment.md."
        )
        checked.put((cluster, table.hbaseTable), Checked(answer, now))
        answer
      case None => false
    }
  }

  /** Some(whether the coprocessor answered), or None when the table has no row to tell by. */
  def probe(cluster: HBaseClusterConf, table: HBaseTableDef): Option[Boolean] =
    HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
      try {
        val scan =
          new Scan().setCaching(1).setLimit(1).setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
        new AggregateSpec(
          KeyCodec.forTable(table).sliceLayout,
          Array.empty[Operand],
          null,
          Array.empty[Int],
          Array(AggregateFunction.countRows()),
          1,
          100
        ).attachTo(scan)
        val scanner = htable.getScanner(scan)
        try Option(scanner.next()).map(AggregateBatch.isBatch)
        finally scanner.close()
      } finally htable.close()
    }
}
