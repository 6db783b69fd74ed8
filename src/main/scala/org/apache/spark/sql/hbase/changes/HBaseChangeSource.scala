// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import org.apache.spark.sql.{DataFrame, SQLContext}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.classic.{Dataset, SparkSession}
import org.apache.spark.sql.connector.read.streaming.{
  Offset => StreamOffset, ReadLimit, ReadMaxRows, ReportsSourceMetrics, SupportsAdmissionControl
}
import org.apache.spark.sql.execution.datasources.LogicalRelation
import org.apache.spark.sql.execution.streaming.{Offset, Source}
import org.apache.spark.sql.types.StructType

/** Where a stream of changes stands: the [[ChangePosition]] up to which it has read, as versioned JSON. */
final case class ChangeOffset(position: ChangePosition) extends Offset {
  override def json: String = position.json
}

/**
 * `spark.readStream.format("hbase").option("table", "t")`: each micro-batch is the rows of `t`
 * written since the last one, up to the driver's clock less `lagMillis` (see [[ChangeRead]]),
 * at most `maxRows` of them. The first batch is empty: it records where the stream starts, so
 * that a restart before any batch has finished starts at the same place.
 *
 * @param template the read of every batch, but for where it starts and ends
 * @param start    where the stream starts: writes after it are delivered
 */
class HBaseChangeSource(
    sqlContext: SQLContext,
    template: ChangeRead,
    start: ChangePosition,
    lagMillis: Long,
    maxRows: Option[Int],
    clock: () => Long = () => System.currentTimeMillis()
) extends Source with SupportsAdmissionControl with ReportsSourceMetrics {

  /** What the last trigger's scan for new writes cost, as the query's progress reports it. */
  @volatile private var lastLook: Map[String, String] = Map.empty

  private def session = sqlContext.sparkSession.asInstanceOf[SparkSession]

  override def schema: StructType = template.schema

  override def getDefaultReadLimit: ReadLimit = maxRows.fold(ReadLimit.allAvailable())(n => ReadLimit.maxRows(n))

  override def getOffset: Option[Offset] =
    throw new UnsupportedOperationException(s"$this is read through latestOffset")

  override def latestOffset(startOffset: StreamOffset, limit: ReadLimit): StreamOffset =
    Option(startOffset).fold(ChangeOffset(start)) { offset =>
      val from = position(offset)
      val until = clock() - lagMillis
      val rows = limit match {
        case m: ReadMaxRows => Some(math.min(m.maxRows, Int.MaxValue.toLong).toInt)
        case _ => None
      }
      // With no write since `from`, the offset stays, and no batch runs.
      val end =
        if (until <= from.millis) None
        else {
          val (found, rowsScanned, blockBytes) =
            NextChanges.measured(template.copy(from = from, to = ChangePosition(until, None)), rows)
          lastLook = Map(
            "lookedFromMillis" -> from.millis.toString,
            "lookedUntilMillis" -> until.toString,
            "lookRowsScanned" -> rowsScanned.toString,
            "lookBlockBytesScanned" -> blockBytes.toString
          )
          found
        }
      ChangeOffset(end.getOrElse(from))
    }

  override def getBatch(start: Option[Offset], end: Offset): DataFrame = start match {
    case None => session.internalCreateDataFrame(session.sparkContext.emptyRDD[InternalRow], schema, isStreaming = true)
    case Some(from) =>
      val read = template.copy(from = position(from), to = position(end))
      Dataset.ofRows(session, LogicalRelation(HBaseChangesRelation(read)(sqlContext), isStreaming = true))
  }

  private def position(offset: StreamOffset): ChangePosition = offset match {
    case ChangeOffset(p) => p
    case other => ChangePosition.fromJson(
        other.json,
        s"The offset of the stream of changes of HBase table '${template.table.name}'"
      )
  }

  override def metrics(latestConsumedOffset: java.util.Optional[StreamOffset]): java.util.Map[String, String] = {
    import scala.jdk.CollectionConverters._
    lastLook.asJava
  }

  override def stop(): Unit = ()

  override def toString: String = s"HBaseChangeSource[${template.table.name}]"
}
