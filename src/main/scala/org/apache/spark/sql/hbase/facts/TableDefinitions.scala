package org.apache.spark.sql.hbase.facts

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.Duration
import scala.util.Try

import org.apache.spark.sql.hbase.Utf8
import org.apache.spark.sql.hbase.catalog.{CatalogEntry, HBaseCatalog, HBaseTableDef, RowSince}
import org.apache.spark.sql.hbase.connection.DaemonThreads

/**
 * Table definitions as statements resolve them: always the stored one, parsed only when it
 * changed. A statement sends the definition's bytes it last read with its Get, and the region
 * server returns the definition only when the stored one differs, whoever changed it; so the
 * next statement after any change, by any session or application, reads the new one.
 *
 * The Get may be sent ahead, as the statement's parse starts ([[readAhead]]): its answer, taken
 * at resolution, is told against the definition cached when it was sent.
 */
object TableDefinitions {

  /** A catalog Get sent for `name`, against `known`, the definition cached then: bytes and entry. */
  final class ReadAhead private[TableDefinitions] (
      val catalog: HBaseCatalog,
      val name: String,
      val known: (Array[Byte], CatalogEntry),
      val answer: Future[RowSince]
  )

  private lazy val readsAhead: ExecutionContext = DaemonThreads.pool("hbase-catalog-read-ahead", 4)

  private def fact(catalog: HBaseCatalog, name: String): FactsCache.Definition =
    FactsCache.Definition(catalog.cluster, catalog.metaTable.getNameAsString, Utf8.string(HBaseCatalog.rowKey(name)))

  /** Whether a definition of `name` is cached: one that a Get can be told against. */
  def isCached(catalog: HBaseCatalog, name: String): Boolean =
    FactsCache.cached(fact(catalog, name), Long.MaxValue).isDefined

  /** The Get of `name`'s catalog row, sent now, told against the definition cached; None when none is. */
  def readAhead(catalog: HBaseCatalog, name: String): Option[ReadAhead] =
    FactsCache.cached(fact(catalog, name), Long.MaxValue).map { known =>
      new ReadAhead(catalog, name, known, Future(catalog.entrySince(name, Some(known._1)))(readsAhead))
    }

  /**
   * The catalog row of `name` as stored now, readable or not: the answer of `ahead` when it was
   * sent for this catalog and name and did not fail, else a Get made now.
   */
  def entry(catalog: HBaseCatalog, name: String, ahead: Option[ReadAhead] = None): Option[CatalogEntry] = {
    val fact = this.fact(catalog, name)
    val answered = ahead.filter(a => (a.catalog eq catalog) && a.name.equalsIgnoreCase(name))
      .flatMap(a => Try(Await.result(a.answer, Duration.Inf)).toOption.map(a.known -> _))
    answered match {
      case Some((known, since)) => settle(catalog, name, fact, Some(known), since)
      case None =>
        val known = FactsCache.cached(fact, Long.MaxValue)
        settle(catalog, name, fact, known, catalog.entrySince(name, known.map(_._1)))
    }
  }

  /** What a Get told against `known` says: the definition then stored, which the cache now holds. */
  private def settle(
      catalog: HBaseCatalog,
      name: String,
      fact: FactsCache.Definition,
      known: Option[(Array[Byte], CatalogEntry)],
      since: RowSince
  ): Option[CatalogEntry] = {
    def stored(since: RowSince): Option[CatalogEntry] = since match {
      case RowSince.Unchanged => known.map(_._2)
      case RowSince.Changed(bytes, entry) => FactsCache.put(fact, (bytes, entry)); Some(entry)
      case RowSince.Missing => FactsCache.forget(fact); None
    }
    since match {
      // Without a tag, an unchanged row looks like no row: read it whole to tell.
      case RowSince.Missing if known.isDefined => stored(catalog.entrySince(name, None))
      case since => stored(since)
    }
  }

  /** The definition of `name` as stored now; fails, naming the table, when its entry is broken. */
  def get(catalog: HBaseCatalog, name: String, ahead: Option[ReadAhead] = None): Option[HBaseTableDef] =
    entry(catalog, name, ahead).map(_.definition)
}
