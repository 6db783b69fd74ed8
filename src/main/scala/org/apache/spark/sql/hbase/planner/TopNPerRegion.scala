// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.planner

import org.apache.spark.sql.catalyst.expressions.{Attribute, Descending, NullsFirst, SortOrder}
import org.apache.spark.sql.hbase.codec.KeyCodec
import org.apache.spark.sql.hbase.server.TopNSpec
import org.apache.spark.sql.hbase.logical.{HBaseRelation, TopNRequest}

/**
 * Each region server keeps only the `rows` rows of each region that are smallest by `order`
 * (the `spec` it is sent, in `wireVersion`), and Spark's own top-n, which stays above the scan,
 * merges them. Every row a region keeps passed the whole WHERE clause, so each region sends at
 * least its own top `rows`, which is all a top-n of `rows` needs of it.
 */
final case class TopNPerRegion(rows: Int, order: Seq[SortOrder], wireVersion: Int, spec: WireBytes) {
  def specOf: TopNSpec = TopNSpec.parseFrom(spec.bytes)

  def describe: String = s"at most $rows rows per region, by ${order.map(_.sql).mkString(", ")}"
}

object TopNPerRegion {

  /**
   * The region servers' top-n of a scan, when it is safe and they can keep it: the region servers
   * check every region's whole WHERE clause (nothing Spark filters later could leave a region with
   * fewer than `rows` rows), no region's bad rows are skipped, each ordering column is one the
   * region servers read as order-preserving bytes, and the table's coprocessor reads a wire version
   * with a top-n (asked last). An order led by the leading key column is left to the ordered limit
   * (`LimitsInKeyOrder`), which reads only the first rows.
   */
  def plan(
      wanted: TopNRequest,
      relation: HBaseRelation,
      request: ScanRequest,
      regions: Seq[RegionScan],
      maxRows: Int,
      sliceMillis: Int,
      facts: TableFacts
  ): Option[TopNPerRegion] = {
    val table = relation.table
    val codec = KeyCodec.forTable(table)
    val attributes = wanted.order.map(_.child).collect { case a: Attribute => a }
    val inTable = attributes.size == wanted.order.size &&
      attributes.forall(a => relation.output.exists(_.exprId == a.exprId))
    if (maxRows <= 0 || wanted.rows > maxRows || wanted.rows <= 0 || !inTable) return None
    if (request.skipBadRowKeys || request.reversed || codec.keyCheck.isEmpty) return None
    if (regions.isEmpty || !regions.forall(r => r.server.isDefined && r.residual.isEmpty)) return None
    if (relation.keyAttributes.headOption.exists(_.exprId == attributes.head.exprId)) return None
    val columns = attributes.map(relation.columnOf)
    val readable = new ServerPredicates(table, codec, relation.columnOf, request.wireVersion).readable _
    if (!columns.forall(readable)) return None
    val wireVersion = facts.aggregator(regions.map(_.region)).fold(return None)(_ min request.wireVersion)
    if (!TopNSpec.carriesTopN(wireVersion)) return None
    val operands = new ServerPredicates(table, codec, relation.columnOf, wireVersion).withColumns(columns.distinct, Nil)
    val spec = new TopNSpec(
      codec.sliceLayout,
      operands.operands.toArray,
      columns.map(operands.indexOf).toArray,
      wanted.order.map(_.direction == Descending).toArray,
      wanted.order.map(_.nullOrdering == NullsFirst).toArray,
      wanted.rows,
      sliceMillis,
      codec.keyCheck.get,
      wireVersion
    )
    Some(TopNPerRegion(wanted.rows, wanted.order, wireVersion, WireBytes(spec.toByteArray)))
  }
}
