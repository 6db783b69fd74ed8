// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{Attribute, Expression, NamedExpression, PredicateHelper}
import org.apache.spark.sql.catalyst.expressions.aggregate.{AggregateExpression, AggregateFunction}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.globalindex.IndexSpecs
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.hbase.metadata.HBaseColumn
import org.apache.spark.sql.hbase.server.{AggregateSpec, KeyLayout}

/**
 * Spark's partial aggregation over a scan through a covering global index, computed by the
 * index's region servers over its rows in the lookup's ranges: `aggregate` says which groups,
 * aggregates and buffer slots (its scan is the data table's, whose rows the index rows stand for),
 * `spec` what each index region is sent. The region servers fold in the rows the index vouches
 * for alone and send back the keys of the others, whose data rows are read from the data table
 * where they give those very keys; the run-time read decides whether the index's answer may be trusted at all, and where it may
 * not, the scan reads as planned ([[IndexLookup]]). It stands for the partial aggregation of
 * `grouping` and `functions`, Spark's own, and for no other.
 */
final case class IndexAggregatePlan(
    aggregate: AggregateScanPlan,
    spec: WireBytes,
    grouping: Seq[NamedExpression],
    functions: Seq[AggregateFunction]
) {
  def specOf: AggregateSpec = AggregateSpec.parseFrom(spec.bytes)

  /** Whether this is the partial aggregation of `grouping` and `functions`. */
  def answers(grouping: Seq[Expression], functions: Seq[AggregateFunction]): Boolean =
    sameExpressions(grouping, this.grouping) && sameExpressions(functions, this.functions)

  private def sameExpressions(a: Seq[Expression], b: Seq[Expression]): Boolean =
    a.size == b.size && a.zip(b).forall { case (x, y) => x.semanticEquals(y) }

  def describe: String = {
    val groups = if (aggregate.groupBy.isEmpty) "" else s" group by ${aggregate.groupBy.map(_.name).mkString(", ")}"
    s"partial aggregate in the index's region servers: ${aggregate.aggregates.map(_.sql).mkString(", ")}$groups"
  }
}

/**
 * Whether the region servers of a covering global index can compute Spark's partial aggregation
 * over a scan through it, and how: only where every conjunct of the WHERE clause either holds
 * throughout the lookup's ranges of the index or is one they evaluate over columns an index row
 * holds, every grouping value and aggregate is over such columns and computed as Spark would, and
 * the index's region servers run the aggregation coprocessor of a wire version that reads index
 * rows. An index row holds the table's key columns (in the data row key that ends its key) and
 * the covered columns (in cells of the data row's family and qualifier); the indexed values are in
 * its key in a form the region servers do not cut. Anything else stays with the read through the
 * index, as before.
 */
object IndexAggregates extends PredicateHelper {

  /** A layout that cuts no key apart: the probe of an index table's coprocessor reads no key. */
  val AnyKey: KeyLayout = new KeyLayout(Array(KeyLayout.REST), Array(0), Array.emptyByteArray)

  /**
   * @param scan      the finished scan, whose covering [[IndexLookup]] reads the index
   * @param condition its WHERE clause
   */
  def plan(
      scan: TableScanPlan,
      relation: HBaseRelation,
      condition: Option[Expression],
      grouping: Seq[NamedExpression],
      aggregates: Seq[AggregateExpression],
      facts: TableFacts,
      maxGroups: Int,
      maxGroupBytes: Long
  ): Option[IndexAggregatePlan] = {
    val request = scan.request
    val lookup = scan.indexLookup.filter(_.covering).getOrElse(return None)
    val ranges = lookup.keyRanges match {
      case KeyRanges.Ranges(rs) if rs.nonEmpty => rs
      case _ => return None
    }
    if (
      scan.joinKeys.isDefined || request.asOf.isDefined || request.writtenSince.nonEmpty ||
      request.limits.maxRows.isDefined || request.topN.isDefined || request.reversed
    ) return None
    val table = request.table
    val codec = KeyCodec.forTable(table)
    // The region servers check the data row keys the index rows end with, as a read of the data would.
    if (codec.keyCheck.isEmpty) return None
    val index = lookup.index
    val held = (c: HBaseColumn) => table.keys.contains(c) || index.covered.exists(_.equalsIgnoreCase(c.name))
    val columnOf =
      (a: Attribute) => Some(request.read.indexWhere(_.exprId == a.exprId)).filter(_ >= 0).map(request.columns)

    val conjuncts = condition.toSeq.flatMap(splitConjunctivePredicates)
    val (keys, usable) = condition.flatMap(IndexLookup.usableKeys(relation, index, _)).getOrElse(return None)
    val decided = conjuncts.map(c => ranges.forall(KeyRangePlanner.holdsThroughout(c, keys.take(usable))))
    val pushed = conjuncts.zip(decided).collect { case (c, false) => c }
    val predicates = new ServerPredicates(table, codec, request.columnOf, request.wireVersion)
    if (!pushed.forall(c => c.references.forall(a => columnOf(a).exists(held)) && predicates.pushable(c))) return None

    val (groupBy, server, slots) =
      AggregatePushdown.translate(request, grouping, aggregates, columnOf, held).getOrElse(return None)
    val indexRegions = facts.globalIndexTable(index).map(_.regions).getOrElse(return None)
    val wireVersion = facts.indexAggregator(index, indexRegions).fold(return None)(_ min request.wireVersion)
    if (!AggregateSpec.readsIndexRows(wireVersion)) return None
    val aggregate = AggregateScanPlan(
      scan,
      groupBy,
      server,
      slots,
      maxGroups,
      AggregatePushdown.sliceMillis(request.cluster.settings),
      singleTask = true,
      maxGroupBytes = maxGroupBytes,
      wireVersion = wireVersion
    )
    val spec = RegionRequests.aggregateSpec(aggregate, pushed).overIndexRows(IndexSpecs.of(table, index))
    Some(IndexAggregatePlan(aggregate, WireBytes(spec.toByteArray), grouping, aggregates.map(_.aggregateFunction)))
  }
}
