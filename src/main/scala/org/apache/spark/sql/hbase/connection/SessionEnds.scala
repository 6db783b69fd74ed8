// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.util.concurrent.atomic.AtomicReference

import scala.collection.mutable

import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}

/**
 * When a user's last Thrift or Spark Connect session on this server closes, the driver drops the
 * HBase delegation tokens it obtained for them ([[UserTokens]]) and closes their connections that
 * nobody uses; their next session starts afresh. Executors' connections of the user close after
 * the connection idle timeout.
 *
 * The servers announce their sessions on Spark's listener bus. Their event classes are private to
 * their packages, so they are known here by their names and read by their fields' names.
 */
final class SessionEnds extends SparkListener {
  private val usersOfSessions = mutable.Map.empty[String, String]

  override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
    case session: Product if SessionEnds.Opened(event.getClass.getName) =>
      fields(session)
        .get("sessionId")
        .zip(fields(session).get("userName").orElse(fields(session).get("userId")))
        .foreach { case (id, user) => synchronized(usersOfSessions(id.toString) = user.toString) }
    case session: Product if SessionEnds.Closed(event.getClass.getName) =>
      fields(session).get("sessionId").foreach { id =>
        val lastOfUser = synchronized {
          usersOfSessions.remove(id.toString).filterNot(user => usersOfSessions.values.exists(_ == user))
        }
        lastOfUser.foreach(SessionEnds.drop)
      }
    case _ =>
  }

  private def fields(event: Product): Map[String, Any] =
    event.productElementNames.zip(event.productIterator).toMap
}

object SessionEnds {
  private val Opened = Set(
    "org.apache.spark.sql.hive.thriftserver.ui.SparkListenerThriftServerSessionCreated",
    "org.apache.spark.sql.connect.service.SparkListenerConnectSessionStarted"
  )
  private val Closed = Set(
    "org.apache.spark.sql.hive.thriftserver.ui.SparkListenerThriftServerSessionClosed",
    "org.apache.spark.sql.connect.service.SparkListenerConnectSessionClosed"
  )

  private val listeningTo = new AtomicReference[SparkContext]()

  /** Listens to the session ends of `context`'s application, once per application. */
  def listen(context: SparkContext): Unit = {
    val before = listeningTo.get
    if (before ne context) {
      if (listeningTo.compareAndSet(before, context)) context.addSparkListener(new SessionEnds)
    }
  }

  private[connection] def drop(user: String): Unit = {
    UserTokens.dropUser(user)
    HBaseConnections.closeUser(user)
  }
}
