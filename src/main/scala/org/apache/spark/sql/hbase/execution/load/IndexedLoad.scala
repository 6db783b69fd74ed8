// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.execution.load

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.TableName

import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.facts.HBaseRegions
import org.apache.spark.sql.hbase.globalindex.IndexSpecs
import org.apache.spark.sql.hbase.metadata.{HBaseTableDef, HBaseTableName, TableDefinitionStore}
import org.apache.spark.sql.hbase.server.{IndexSpec, IndexTrust}

/**
 * The global indexes a bulk load keeps: every index that any definition over its HBase table has,
 * as the region servers keep them (`specs`, wire bytes), the tag its data files are named with
 * (`server.IndexTrust`), and for each index, its HBase table's regions and families. A load
 * keeps them in three steps (docs/indexes.md, "Bulk loads"): the index rows the loaded rows get
 * land first, then the data, then the deletes of the index rows they had; between any two steps a
 * query finds every row it should (and maybe some it drops when it reads the data row).
 */
final case class IndexedLoad(specs: Array[Byte], tag: String, tables: IndexedSeq[IndexTarget])

/** One index's HBase table, as a load writes into it: its regions' start keys and its families. */
final case class IndexTarget(table: String, startKeys: Array[Array[Byte]], storage: Map[String, FamilyStorage]) {
  def families: Seq[String] = storage.keys.toSeq.sorted
}

object IndexedLoad {

  /** Where a cell of index `index` goes: the step before the data, or the one after. */
  def target(index: Int, before: Boolean): Int = index * 2 + (if (before) 0 else 1)

  /**
   * The global indexes over `table`'s HBase table, as the catalog has them; None when there are
   * none, or some catalog entry cannot be read: then the load keeps none, and the region servers
   * mark any index they keep as untrusted where it loads.
   */
  def of(catalog: TableDefinitionStore, table: HBaseTableDef): Option[IndexedLoad] =
    of(catalog.cluster, IndexSpecs.kept(catalog, table.hbaseTable).getOrElse(Nil))

  def of(cluster: HBaseClusterConf, specs: Seq[IndexSpec]): Option[IndexedLoad] =
    if (specs.isEmpty) None
    else Some(IndexedLoad(
      IndexSpec.toBytes(specs.asJava, IndexSpec.FIRST_VERSION),
      IndexTrust.fileTag(specs.asJava),
      specs.map { spec =>
        val name = TableName.valueOf(spec.indexTable())
        IndexTarget(
          spec.indexTable(),
          HBaseRegions.of(cluster, HBaseTableName(name.getNamespaceAsString, name.getQualifierAsString))
            .map(_.startKey).toArray,
          FamilyStorage.of(cluster, name)
        )
      }.toIndexedSeq
    ))
}
