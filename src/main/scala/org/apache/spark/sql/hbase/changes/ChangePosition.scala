// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.changes

import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode
import org.apache.hadoop.hbase.util.Bytes

import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * A place in the order in which changes are delivered: writes are ordered by their timestamp
 * (epoch milliseconds), and writes of the same millisecond by row key. `key` None stands before
 * every row of its millisecond, so (t, None) means "everything written before t".
 *
 * A read of changes covers the writes whose place is after one position and at or before
 * another; every write has exactly one place, so consecutive reads cover each write once, also
 * when a bound cuts through the rows of one millisecond.
 */
final case class ChangePosition(millis: Long, key: Option[Array[Byte]]) {

  /** Whether a write of row `row` at `ts` stands after this position. */
  def before(ts: Long, row: Array[Byte]): Boolean =
    ts > millis || (ts == millis && key.forall(k => Bytes.compareTo(row, k) > 0))

  /** Whether a write of row `row` at `ts` stands at or before this position. */
  def notBefore(ts: Long, row: Array[Byte]): Boolean = !before(ts, row)

  /** The end (exclusive) of the cell time range that holds every write at or before this position. */
  def timeRangeEnd: Long = if (key.isDefined) millis + 1 else millis

  /** Whether `other` stands after this position. */
  def precedes(other: ChangePosition): Boolean = other.key match {
    case None => other.millis > millis
    case Some(k) => before(other.millis, k)
  }

  def json: String = {
    val node = ChangePosition.mapper.createObjectNode()
    node.put("version", ChangePosition.Version)
    node.put("timestamp", millis)
    key.foreach(k => node.put("key", Bytes.toHex(k)))
    ChangePosition.mapper.writeValueAsString(node)
  }

  override def equals(other: Any): Boolean = other match {
    case p: ChangePosition => p.millis == millis && p.key.map(_.toSeq) == key.map(_.toSeq)
    case _ => false
  }

  override def hashCode: Int = (millis, key.map(_.toSeq)).hashCode

  override def toString: String =
    s"${java.time.Instant.ofEpochMilli(millis)} ($millis ms)${key.fold("")(k => s" after row ${Bytes.toStringBinary(k)}")}"
}

object ChangePosition {
  val Version = 1

  /** Earlier places first; (t, None) before every row of t. */
  implicit val ordering: Ordering[ChangePosition] = (a: ChangePosition, b: ChangePosition) =>
    if (a.millis != b.millis) java.lang.Long.compare(a.millis, b.millis)
    else (a.key, b.key) match {
      case (None, None) => 0
      case (None, _) => -1
      case (_, None) => 1
      case (Some(x), Some(y)) => Bytes.compareTo(x, y)
    }

  private val mapper = new ObjectMapper()

  /** A position from its JSON; `what` names where it came from, for the error. */
  def fromJson(text: String, what: String): ChangePosition = {
    val node =
      try mapper.readTree(text)
      catch { case NonFatal(e) => throw new HBaseSQLException(s"$what is not JSON: $text (${e.getMessage})") }
    node match {
      case o: ObjectNode if o.path("version").asInt(-1) == Version && o.path("timestamp").canConvertToLong =>
        val key = Option(o.get("key")).map(k => Bytes.fromHex(k.asText()))
        ChangePosition(o.get("timestamp").asLong(), key)
      case o: ObjectNode if o.has("version") && o.path("version").asInt(-1) > Version =>
        throw new HBaseSQLException(
          s"$what was written by a newer version (${o.get("version")}) of spark-hbase-sql: $text; this one reads version $Version"
        )
      case _ => throw new HBaseSQLException(
          s"$what is not a change position {\"version\": $Version, \"timestamp\": ..., \"key\": ...}: $text"
        )
    }
  }
}
