// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.write

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName
import org.apache.hadoop.hbase.client.{BufferedMutator, BufferedMutatorParams, Connection, Mutation}

import org.apache.spark.{SparkException, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.metadata.HBaseTableDef
import org.apache.spark.sql.hbase.connection.{HBaseClusterConf, HBaseConnections}
import org.apache.spark.sql.hbase.facts.HBaseTableSizes
import org.apache.spark.util.LongAccumulator

/**
 * Sends rows to HBase as mutations, batched by one BufferedMutator per task, and counts the rows.
 * Writes that do not record themselves for the range indexes are outside writes to them: the
 * table's write guard marks their chunks, which the index then no longer trusts until rebuilt.
 */
object HBaseMutations {

  /** The mutations of each row of `rows`, sent as they come. */
  def send(cluster: HBaseClusterConf, table: HBaseTableDef, rows: RDD[InternalRow])(
      mutations: InternalRow => Seq[Mutation]
  ): Long =
    sendPartitions(cluster, table, rows, operationTimeoutMillis = None) { (partition, mutator) =>
      partition.map { row => mutator.mutate(mutations(row).asJava); 1L }.sum
    }

  /** Each task hands its partition and a mutator to `write`, which returns how many rows it sent. */
  def sendPartitions(
      cluster: HBaseClusterConf,
      table: HBaseTableDef,
      rows: RDD[InternalRow],
      operationTimeoutMillis: Option[Int]
  )(
      write: (Iterator[InternalRow], BufferedMutator) => Long
  ): Long =
    eachPartition(cluster, table, rows) { (partition, connection) =>
      val writer = mutator(connection, table, operationTimeoutMillis)
      try write(partition, writer)
      finally writer.close()
    }

  /** A task's mutator of `table`, whose close sends what it still holds. */
  def mutator(connection: Connection, table: HBaseTableDef, operationTimeoutMillis: Option[Int]): BufferedMutator = {
    val params = new BufferedMutatorParams(TableName.valueOf(table.hbaseTable.namespace, table.hbaseTable.name))
    connection.getBufferedMutator(operationTimeoutMillis.fold(params)(params.operationTimeout))
  }

  /**
   * Each task hands its partition and the cluster's connection to `write`, which returns how many
   * rows it wrote; their sum is returned. A task's failure is reported as its row's problem.
   */
  def eachPartition(cluster: HBaseClusterConf, table: HBaseTableDef, rows: RDD[InternalRow])(
      write: (Iterator[InternalRow], Connection) => Long
  ): Long = {
    val sent = rows.sparkContext.longAccumulator(s"rows written to ${table.hbaseTable}")
    try rows.sparkContext.runJob(
        rows,
        new PartitionWrite(cluster, write, sent),
        rows.partitions.indices,
        (_: Int, _: Unit) => ()
      )
    catch {
      // A bad row fails its task; report the row's problem (a NULL key, HBase refusing), not the job's failure around it.
      case e: SparkException =>
        throw HBaseSQLException.causeOf(e).map(c => new HBaseSQLException(c.getMessage, Some(e))).getOrElse(e)
    } finally HBaseTableSizes.forget(cluster, table.hbaseTable)
    sent.value
  }

  /**
   * A task's writing of its partition: a named class rather than a lambda, whose class file Spark's
   * closure cleaner would read for every statement (see [[org.apache.spark.sql.hbase.execution.CollectedRows]]).
   */
  private final class PartitionWrite(
      cluster: HBaseClusterConf,
      write: (Iterator[InternalRow], Connection) => Long,
      sent: LongAccumulator
  ) extends ((TaskContext, Iterator[InternalRow]) => Unit)
      with Serializable {
    override def apply(context: TaskContext, partition: Iterator[InternalRow]): Unit =
      HBaseConnections.withConnection(cluster)(connection => sent.add(write(partition, connection)))
  }
}
