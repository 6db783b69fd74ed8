// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.commands

import org.apache.spark.sql.{classic, Row, SparkSession}
import org.apache.spark.sql.catalyst.expressions.{
  Alias, Attribute, AttributeReference, EqualTo, Expression, GreaterThan, IsNull, Literal, Or
}
import org.apache.spark.sql.catalyst.expressions.aggregate.Count
import org.apache.spark.sql.catalyst.plans.QueryPlan
import org.apache.spark.sql.catalyst.plans.logical.{Aggregate, Filter, Limit, LogicalPlan}
import org.apache.spark.sql.execution.LogicalRDD
import org.apache.spark.sql.hbase.common.HBaseSQLException
import org.apache.spark.sql.hbase.execution.ReadsHBaseRows
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.types.LongType
import org.apache.spark.storage.StorageLevel

/**
 * MERGE INTO an HBase table. `actions` holds the target's and the source's rows joined on the
 * merge condition, each with the number of the clause that applies to it (`clause`; rows no
 * clause applies to are left out). It is read once, into Spark's memory and disk, so that every
 * clause's writes come from one reading of both tables; then a target row that more than one
 * source row would change, or an inserted row without a key, fails the statement before anything
 * is written. Each clause's rows are
 * then written as its statement would write them: deletes whole, updates of their SET columns
 * (see [[UpdateHBaseTableCommand]]), inserts by key (see [[InsertIntoHBaseTableCommand]]), in that
 * order. Like DELETE and UPDATE, it is not atomic across rows. Its scan metrics are those of the
 * target's read.
 */
case class MergeIntoHBaseTableCommand(
    relation: HBaseRelation,
    actions: LogicalPlan,
    clause: Attribute,
    writes: Seq[MergeIntoHBaseTableCommand.ClauseWrite],
    checksCardinality: Boolean
) extends ReadsHBaseRows {
  import MergeIntoHBaseTableCommand._

  override val output: Seq[Attribute] = Seq(
    AttributeReference("num_affected_rows", LongType, nullable = false)(),
    AttributeReference("num_updated_rows", LongType, nullable = false)(),
    AttributeReference("num_deleted_rows", LongType, nullable = false)(),
    AttributeReference("num_inserted_rows", LongType, nullable = false)()
  )

  override def innerChildren: Seq[QueryPlan[_]] = Seq(actions)

  override def run(session: SparkSession): Seq[Row] = {
    val classicSession = session.asInstanceOf[classic.SparkSession]
    val joined = classic.Dataset.ofRows(classicSession, actions)
    val readRows = joined.queryExecution.toRdd.map(_.copy()).persist(StorageLevel.MEMORY_AND_DISK)
    try {
      readRows.count()
      recordScanMetrics(joined) // the target's read
      val read = LogicalRDD.fromDataset(readRows, joined, isStreaming = false)
      if (checksCardinality) refuseRowsChangedTwice(classicSession, read)
      refuseInsertsWithoutKey(classicSession, read)
      val counts = writes.sortBy(w => order(w.kind)).map { w =>
        val rows = overRead(w, read)
        val written = w.kind match {
          case Delete => DeleteFromHBaseTableCommand(relation.table, relation.cluster, rows).run(session)
          case Update(command) => command.copy(newValues = rows).run(session)
          case Insert =>
            InsertIntoHBaseTableCommand(relation, rows).run(session)
            Seq(Row(classic.Dataset.ofRows(classicSession, rows).count()))
        }
        w.kind -> written.head.getLong(0)
      }
      def of(kind: Kind => Boolean) = counts.collect { case (k, n) if kind(k) => n }.sum
      val (updated, deleted, inserted) = (of(_.isInstanceOf[Update]), of(_ == Delete), of(_ == Insert))
      Seq(Row(updated + deleted + inserted, updated, deleted, inserted))
    } finally readRows.unpersist(blocking = false)
  }

  /** The clause's rows over `read`, the rows of `actions` as they were read. */
  private def overRead(write: ClauseWrite, read: LogicalPlan): LogicalPlan =
    write.plan.transformUp { case p if p.fastEquals(actions) => read }

  /** An INSERT clause's row with a NULL key column, which HBase cannot store: found before anything is written. */
  private def refuseInsertsWithoutKey(session: classic.SparkSession, rows: LogicalPlan): Unit =
    writes.filter(_.kind == Insert).foreach { w =>
      val keys = w.plan.output.zip(relation.table.columns).collect { case (a, c) if c.isKey => a }
      val inserted = overRead(w, rows)
      val missing = Limit(Literal(1), Filter(keys.map(k => IsNull(k): Expression).reduce(Or), inserted))
      classic.Dataset.ofRows(session, missing).collect().headOption.foreach { row =>
        val column = keys.indices.find(row.isNullAt).map(keys(_).name).getOrElse(keys.head.name)
        throw new HBaseSQLException(
          s"MERGE INTO ${relation.table.name}: a row its WHEN NOT MATCHED clause would insert has NULL in key " +
            s"column '$column', which a row key cannot hold. Nothing was written"
        )
      }
    }

  /** A target row that two source rows would change: the statement's result would depend on their order. */
  private def refuseRowsChangedTwice(session: classic.SparkSession, rows: LogicalPlan): Unit = {
    val matched = writes.filter(_.matched).map(w => EqualTo(clause, Literal(w.clause)))
    if (matched.nonEmpty) {
      val keys = relation.keyAttributes
      val count = Alias(Count(Literal(1)).toAggregateExpression(), "sources")()
      val twice = Limit(
        Literal(1),
        Filter(
          GreaterThan(count.toAttribute, Literal(1L)),
          Aggregate(keys, keys :+ count, Filter(matched.reduce(Or), rows), None)
        )
      )
      classic.Dataset.ofRows(session, twice).collect().headOption.foreach { row =>
        val key = keys.indices.map(i => s"${keys(i).name} = ${row.get(i)}").mkString(", ")
        throw new HBaseSQLException(
          s"MERGE INTO ${relation.table.name}: ${row.getLong(keys.size)} source rows match the target row " +
            s"($key), and a WHEN MATCHED clause would change it for each; the ON condition must match each " +
            "target row with at most one source row. Nothing was written"
        )
      }
    }
  }
}

object MergeIntoHBaseTableCommand {

  /** What a clause does to its rows. */
  sealed trait Kind
  case object Delete extends Kind
  final case class Update(command: UpdateHBaseTableCommand) extends Kind
  case object Insert extends Kind

  private def order(kind: Kind): Int = kind match {
    case Delete => 0
    case _: Update => 1
    case Insert => 2
  }

  /**
   * Clause number `clause`'s writes: `plan`, over the command's `actions`, gives the rows that
   * statement writes (the key columns; the key columns and the new values; whole rows).
   * `matched`: a WHEN MATCHED clause.
   */
  final case class ClauseWrite(clause: Int, kind: Kind, plan: LogicalPlan, matched: Boolean)
}
