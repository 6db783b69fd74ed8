package org.apache.spark.sql.hbase.facts

import org.apache.spark.sql.hbase.catalog.{CatalogEntry, HBaseCatalog, HBaseTableDef}
import org.apache.spark.sql.hbase.codec.Utf8

/**
 * Table definitions as statements resolve them: always the stored one, read whole only when it
 * changed. A definition read before is used again when its catalog row still carries the tag it
 * was read with, which one Get of eight bytes tells; a row changed by any session or application
 * has a new tag, so the next statement reads it again. Rows without a tag (written by an older
 * plugin) are read whole every time.
 */
object TableDefinitions {

  /** The catalog row of `name` as stored now, readable or not. */
  def entry(catalog: HBaseCatalog, name: String): Option[CatalogEntry] = {
    val fact =
      FactsCache.Definition(catalog.cluster, catalog.metaTable.getNameAsString, Utf8.string(HBaseCatalog.rowKey(name)))
    val known = FactsCache.cached(fact, Long.MaxValue).filter { case (tag, _) =>
      catalog.tag(name).exists(_.sameElements(tag))
    }
    known.map(_._2).orElse {
      val read = catalog.taggedEntry(name)
      read match {
        case Some((Some(tag), entry)) => FactsCache.put(fact, (tag, entry))
        case _ => FactsCache.forget(fact)
      }
      read.map(_._2)
    }
  }

  /** The definition of `name` as stored now; fails, naming the table, when its entry is broken. */
  def get(catalog: HBaseCatalog, name: String): Option[HBaseTableDef] = entry(catalog, name).map(_.definition)
}
