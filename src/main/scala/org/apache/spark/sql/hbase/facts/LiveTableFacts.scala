// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.spark.sql.hbase.common.HBaseSQLConf
import org.apache.spark.sql.hbase.metadata.{GlobalIndexDef, RangeIndexDef}
import org.apache.spark.sql.hbase.rangeindex.{IndexChunks, RangeIndexStore}
import org.apache.spark.sql.hbase.logical.HBaseRelation
import org.apache.spark.sql.hbase.planner.{IndexAggregates, IndexTableFacts, RegionInfo, TableFacts}
import org.apache.spark.sql.internal.SQLConf

/**
 * A table's facts as HBase gives them, each looked up on first use and kept in [[FactsCache]] for
 * `spark.sql.hbase.partition.expiration` seconds: a plan that prunes every region never probes
 * the region servers, and one that reads a few probes only the servers holding those. A range index's write marks are read afresh for every plan that uses it.
 */
final case class LiveTableFacts(relation: HBaseRelation, conf: SQLConf) extends TableFacts {
  private val expiration = conf.getConf(HBaseSQLConf.PartitionExpiration)

  override lazy val regions: Seq[RegionInfo] =
    HBaseRegions.cached(relation.cluster, relation.table.hbaseTable, expiration)

  override def serverFilter(regions: Seq[RegionInfo]): Map[String, Option[Int]] =
    ServerFilterSupport.versions(relation.cluster, relation.table, regions, expiration)

  override def aggregator(through: Seq[RegionInfo]): Option[Int] =
    AggregatorSupport.version(relation.cluster, relation.table, through, expiration)

  override def globalIndexTable(index: GlobalIndexDef): Option[IndexTableFacts] =
    HBaseTableSizes.cached(relation.cluster, index.indexTable).map { bytes =>
      IndexTableFacts(HBaseRegions.cached(relation.cluster, index.indexTable, expiration), bytes)
    }

  override def indexAggregator(index: GlobalIndexDef, through: Seq[RegionInfo]): Option[Int] =
    AggregatorSupport.version(relation.cluster, index.indexTable, IndexAggregates.AnyKey, through, expiration)

  /** Write marks are never cached: a mark must count from the moment it is written. */
  override def rangeIndex(index: RangeIndexDef): IndexChunks = IndexBuilds.usable(
    RangeIndexStore.of(relation.cluster, conf.getConf(HBaseSQLConf.IndexTable)),
    relation.table,
    index,
    conf.getConf(HBaseSQLConf.IndexClockSkew)
  )
}
