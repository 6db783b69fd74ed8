// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.Scan
import org.apache.hadoop.hbase.filter.{FilterList, FirstKeyOnlyFilter, KeyOnlyFilter}

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.server.{AggregateBatch, AggregateFunction, AggregateSpec, Operand, ServerVersions}

/**
 * Whether a table's region servers run the aggregation coprocessor, and in which wire version,
 * probed once per table (again after `spark.sql.hbase.partition.expiration`). The probe asks for
 * the server's [[ServerVersions]], which a coprocessor of wire version 2 or later answers, and
 * carries a version 1 count capped at one group, which an older coprocessor answers with a batch
 * from the first row; without the coprocessor, the row itself comes back. An empty table with an
 * older coprocessor proves nothing, so that answer is not kept.
 */
object AggregatorSupport extends Logging {

  /** The newest wire version both this client and the table's coprocessor read, or None. */
  def version(cluster: HBaseClusterConf, table: HBaseTableDef, maxAgeSeconds: Long): Option[Int] = {
    val fact = FactsCache.AggregatorVersion(cluster, table.hbaseTable)
    FactsCache.cached(fact, maxAgeSeconds * 1000).getOrElse {
      probe(cluster, table) match {
        case Some(answer) =>
          if (answer.isEmpty) logWarning(
            s"HBase table ${table.hbaseTable}: region servers do not run the spark-hbase-sql aggregation " +
              "coprocessor of a wire version this client reads; aggregates are computed in Spark. " +
              "See 'Deploying the server jar' in docs/deployment.md."
          )
          FactsCache.put(fact, answer)
          answer
        case None => None
      }
    }
  }

  /**
   * Some(the wire version to aggregate in, or None without a coprocessor of a shared version), or
   * None when the table has no row to tell by.
   */
  def probe(cluster: HBaseClusterConf, table: HBaseTableDef): Option[Option[Int]] =
    HBaseConnections.withConnection(cluster) { connection =>
      val htable = connection.getTable(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
      try {
        val scan =
          new Scan().setCaching(1).setLimit(1).setFilter(new FilterList(new FirstKeyOnlyFilter(), new KeyOnlyFilter()))
        ServerVersions.askIn(scan)
        new AggregateSpec(
          KeyCodec.forTable(table).sliceLayout,
          Array.empty[Operand],
          null,
          Array.empty[Int],
          Array(AggregateFunction.countRows()),
          1,
          100,
          0,
          1
        ).attachTo(scan)
        val scanner = htable.getScanner(scan)
        try Option(scanner.next()).map { result =>
            Option(ServerVersions.from(result)) match {
              case Some(versions) => Some(versions.newestShared()).filter(_ > 0)
              case None => if (AggregateBatch.isBatch(result)) Some(1) else None
            }
          }
        finally scanner.close()
      } finally htable.close()
    }
}
