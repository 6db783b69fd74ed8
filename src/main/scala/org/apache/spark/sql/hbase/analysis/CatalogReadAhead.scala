package org.apache.spark.sql.hbase.analysis

import java.util.Locale

import scala.collection.mutable
import scala.util.control.NonFatal

import com.google.common.cache.{Cache, CacheBuilder}

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan
import org.apache.spark.sql.hbase.catalog.SessionCatalogs
import org.apache.spark.sql.hbase.facts.TableDefinitions

/**
 * Every statement reads the catalog row of each HBase table it names, so that a change made by
 * any session or application is seen by the next statement (see [[TableDefinitions]]). That Get
 * is a round trip to a region server; here it is sent as the statement's parse starts, for each
 * word of the statement that names a table whose definition is cached, and its answer is taken
 * when [[ResolveHBaseRelations]] resolves the relation, by which time Spark has parsed the
 * statement and tried its own catalog. The read is the same Get, sent after the statement began:
 * what it sees is as fresh as before.
 *
 * A Get sent ahead belongs to one relation of one parse: it is kept by the identity of the
 * `UnresolvedRelation` the parse made (weakly, and for 10 seconds at most: `spark.sql` analyzes
 * what it parsed at once), and taken once: a plan analyzed again reads the catalog again. A
 * relation Spark copied, a table that is not ours, or a Get that failed fall back to the Get
 * made at resolution, as before.
 */
object CatalogReadAhead {

  /** Tables of one statement read ahead; more are read at resolution. */
  private val MaxTables = 16

  private val sent: Cache[UnresolvedRelation, TableDefinitions.ReadAhead] =
    CacheBuilder.newBuilder().weakKeys().expireAfterWrite(java.time.Duration.ofSeconds(10)).build()

  /** Gets sent ahead and taken so far, for tests. */
  private[hbase] val taken = new java.util.concurrent.atomic.AtomicLong()

  /** `parse`'s plan, with the Gets sent for the tables `sqlText` may name kept for its relations. */
  def around(session: SparkSession, sqlText: String)(parse: => LogicalPlan): LogicalPlan = {
    val reads = send(session, sqlText)
    val plan = parse
    if (reads.nonEmpty) keep(plan, reads)
    plan
  }

  /** The Get sent ahead for this relation by its parse, if any; it is taken only once. */
  def take(relation: UnresolvedRelation): Option[TableDefinitions.ReadAhead] = {
    val found = Option(sent.getIfPresent(relation))
    found.foreach { _ => sent.invalidate(relation); taken.incrementAndGet() }
    found
  }

  private def send(session: SparkSession, sqlText: String): Map[String, TableDefinitions.ReadAhead] =
    try {
      lazy val catalog = SessionCatalogs.of(session)
      val reads = mutable.LinkedHashMap.empty[String, TableDefinitions.ReadAhead]
      val words = this.words(sqlText)
      while (words.hasNext && reads.size < MaxTables) {
        val word = words.next()
        if (!reads.contains(word) && TableDefinitions.isCached(catalog, word)) {
          TableDefinitions.readAhead(catalog, word).foreach(reads(word) = _)
        }
      }
      reads.toMap
    } catch {
      // Reading ahead only saves time: the relation is then read at resolution, which reports errors.
      case NonFatal(_) => Map.empty
    }

  private def keep(plan: LogicalPlan, reads: Map[String, TableDefinitions.ReadAhead]): Unit =
    plan.collectWithSubqueries { case u: UnresolvedRelation => u }.foreach { u =>
      u.multipartIdentifier match {
        case Seq(name) => reads.get(name.toLowerCase(Locale.ROOT)).foreach(sent.put(u, _))
        case _ =>
      }
    }

  /** The distinct words of the text that may name a table, lower-cased; not numbers. */
  private def words(sqlText: String): Iterator[String] = {
    val seen = mutable.HashSet.empty[String]
    val length = sqlText.length
    var i = 0
    Iterator.continually {
      var found: String = null
      while (found == null && i < length) {
        while (i < length && !isWordChar(sqlText.charAt(i))) i += 1
        val start = i
        while (i < length && isWordChar(sqlText.charAt(i))) i += 1
        if (i > start && !sqlText.charAt(start).isDigit) {
          val word = sqlText.substring(start, i).toLowerCase(Locale.ROOT)
          if (seen.add(word)) found = word
        }
      }
      found
    }.takeWhile(_ != null)
  }

  private def isWordChar(c: Char): Boolean =
    (c >= 'a' && c <= 'z') ||
      (c >= 'A' && c <= 'Z') ||
      (c >= '0' && c <= '9') || c == '_'
}
