// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import org.apache.spark.sql.hbase.common.Utf8
import org.apache.spark.sql.hbase.metadata.{CatalogEntry, HBaseTableDef, RowSince, TableDefinitionStore}

/**
 * Table definitions as statements resolve them: always the stored one, parsed only when it
 * changed. A statement sends the definition's bytes it last read with its Get, and the region
 * server returns the definition only when the stored one differs, whoever changed it; so the
 * next statement after any change, by any session or application, reads the new one.
 */
object TableDefinitions {

  /** The catalog row of `name` as stored now, readable or not. */
  def entry(catalog: TableDefinitionStore, name: String): Option[CatalogEntry] = {
    val fact =
      FactsCache.Definition(
        catalog.cluster,
        catalog.metaTable.getNameAsString,
        Utf8.string(TableDefinitionStore.rowKey(name))
      )
    val known = FactsCache.cached(fact, Long.MaxValue)
    def stored(since: RowSince): Option[CatalogEntry] = since match {
      case RowSince.Unchanged => known.map(_._2)
      case RowSince.Changed(bytes, entry) => FactsCache.put(fact, (bytes, entry)); Some(entry)
      case RowSince.Missing => FactsCache.forget(fact); None
    }
    catalog.entrySince(name, known.map(_._1)) match {
      // Without a tag, an unchanged row looks like no row: read it whole to tell.
      case RowSince.Missing if known.isDefined => stored(catalog.entrySince(name, None))
      case since => stored(since)
    }
  }

  /** The definition of `name` as stored now; fails, naming the table, when its entry is broken. */
  def get(catalog: TableDefinitionStore, name: String): Option[HBaseTableDef] = entry(catalog, name).map(_.definition)
}
