// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.facts

import com.google.common.cache.{Cache, CacheBuilder}

import org.apache.spark.sql.hbase.metadata.{CatalogEntry, HBaseTableName}
import org.apache.spark.sql.hbase.connection.HBaseClusterConf
import org.apache.spark.sql.hbase.rangeindex.ChunkStats
import org.apache.spark.sql.hbase.planner.RegionInfo

/**
 * The one cache of what HBase said about tables: regions, sizes, which wire versions region
 * servers run, catalog definitions, range index builds and when global index builds stamped
 * their rows. Each answer keeps the time it was
 * fetched, and each reader says how old an answer it accepts, since the facts age differently
 * (a size for seconds, regions for `spark.sql.hbase.partition.expiration`, a finished build
 * forever). A missing or stale answer is fetched by the caller, outside any lock: two statements
 * may fetch the same fact at once, and the later answer stays. Guava bounds the entries, so the
 * facts of dropped tables go in time.
 */
object FactsCache {

  /** What a fact is about; `T` is the type of its answer. */
  sealed trait Fact[T] { def cluster: HBaseClusterConf }

  /** The facts about one HBase table; all of them go when the table is created, dropped or truncated. */
  sealed trait TableFact[T] extends Fact[T] { def table: HBaseTableName }

  final case class Regions(cluster: HBaseClusterConf, table: HBaseTableName)
      extends TableFact[Seq[RegionInfo]]
  final case class Size(cluster: HBaseClusterConf, table: HBaseTableName) extends TableFact[Option[BigInt]]

  /**
   * The newest wire version one region server runs the filter in, or why it runs none: a fact of
   * the server (`RegionInfo.serverName`, start code included), whatever table it was probed through.
   */
  final case class FilterVersion(cluster: HBaseClusterConf, server: String) extends Fact[Either[String, Int]]
  final case class AggregatorVersion(cluster: HBaseClusterConf, table: HBaseTableName) extends TableFact[Option[Int]]

  /** A catalog row's definition as last read: its stored bytes, and what they say (see [[TableDefinitions]]). */
  final case class Definition(cluster: HBaseClusterConf, metaTable: String, row: String)
      extends Fact[(Array[Byte], CatalogEntry)]

  /** The chunks of a finished range index build: they never change, so any age will do. */
  final case class Build(
      cluster: HBaseClusterConf,
      indexTable: String,
      table: HBaseTableName,
      sqlTable: String,
      index: String,
      generation: Long
  ) extends TableFact[Seq[ChunkStats]]

  /**
   * When the build of a global index stamped its rows, as the index table's marks last said
   * (None: they noted no build): a read through the index reads the changed rows on that guess,
   * at once with the marks, which then confirm it or have the changes read again.
   */
  final case class IndexBuilt(cluster: HBaseClusterConf, table: HBaseTableName) extends TableFact[Option[Long]]

  private final case class Fetched(answer: Any, atMs: Long)

  private val MaxEntries = 10000L
  private val cache: Cache[Fact[_], Fetched] = CacheBuilder.newBuilder().maximumSize(MaxEntries).build()

  /**
   * The answer to `fact` if it was fetched less than `maxAgeMs` ago; otherwise `fetch`'s, kept
   * when `keep` allows (an answer that proves nothing yet is not).
   */
  def get[T](fact: Fact[T], maxAgeMs: Long, keep: T => Boolean = (_: T) => true)(fetch: => T): T =
    cached(fact, maxAgeMs).getOrElse {
      val answer = fetch
      if (keep(answer)) put(fact, answer)
      answer
    }

  /** The answer to `fact` if it was fetched less than `maxAgeMs` ago. */
  def cached[T](fact: Fact[T], maxAgeMs: Long): Option[T] =
    Option(cache.getIfPresent(fact))
      .filter(f => System.currentTimeMillis() - f.atMs < maxAgeMs)
      .map(_.answer.asInstanceOf[T])

  def put[T](fact: Fact[T], answer: T): Unit = cache.put(fact, Fetched(answer, System.currentTimeMillis()))

  def forget(fact: Fact[_]): Unit = cache.invalidate(fact)

  /** Forgets every fact about an HBase table: it was created, dropped or its regions changed. */
  def forgetTable(cluster: HBaseClusterConf, table: HBaseTableName): Unit =
    cache.asMap().keySet().removeIf {
      case t: TableFact[_] => t.cluster == cluster && t.table == table
      case _ => false
    }
}
