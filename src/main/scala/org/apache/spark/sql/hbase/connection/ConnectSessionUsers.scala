// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.util.{Collections, WeakHashMap}

import scala.util.control.NonFatal

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.connect.service.{SessionHolder, SessionHolderInfo, SessionKey, SparkConnectService}
import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * The user id of the Spark Connect session a Spark session serves, on a Connect server. Each
 * Connect session has a Spark session of its own, so the Spark session a statement plans in
 * names its Connect user, in every request: statements and their actions, and the requests that
 * only analyse a plan (a DataFrame's schema), which carry no job tag. Asked only when the server
 * trusts those ids (`spark.sql.hbase.identity.trustConnectUser`): Connect's classes are loaded
 * then and not before.
 */
private[hbase] object ConnectSessionUsers {

  // A Connect session's user never changes; its Spark session is forgotten with it.
  private val known = Collections.synchronizedMap(new WeakHashMap[SparkSession, String]())

  def userOf(session: SparkSession): Option[String] = Option(known.get(session)).orElse {
    val found = ConnectSessions.active.collectFirst { case holder if holder.session eq session => holder.userId }
    found.foreach(known.put(session, _))
    found
  }

  /**
   * Connect's live sessions. Its session manager and the lookup of one session are private to
   * Connect's package (their methods are public in the bytecode), so they are called by
   * reflection; a Spark whose Connect differs fails the statement rather than guess its user.
   */
  private object ConnectSessions {
    private lazy val manager = SparkConnectService.getClass.getMethod("sessionManager").invoke(SparkConnectService)
    private lazy val lookup = manager.getClass.getMethod("getIsolatedSessionIfPresent", classOf[SessionKey])

    def active: Seq[SessionHolder] =
      try {
        val infos = manager.getClass.getMethod("listActiveSessions").invoke(manager)
        infos.asInstanceOf[Seq[SessionHolderInfo]].flatMap { info =>
          lookup.invoke(manager, SessionKey(info.userId, info.sessionId)).asInstanceOf[Option[SessionHolder]]
        }
      } catch {
        case NonFatal(e) =>
          throw new HBaseSQLException(
            "spark.sql.hbase.identity.trustConnectUser is set, and the Spark Connect sessions of this server " +
              s"could not be read to find the statement's user (${e.getClass.getSimpleName}: ${e.getMessage})",
            Some(e)
          )
      }
  }
}
