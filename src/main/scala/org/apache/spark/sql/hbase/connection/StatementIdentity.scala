// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.lang.reflect.UndeclaredThrowableException
import java.security.PrivilegedExceptionAction
import java.util.concurrent.ConcurrentHashMap

import org.apache.hadoop.hbase.security.User
import org.apache.hadoop.security.UserGroupInformation

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.HBaseSQLException

/**
 * Whom HBase sees as the caller of a statement. With `spark.sql.hbase.identity=statement`, a
 * statement that runs as another user than the one this process logged in as (the Thrift
 * server's session user, with `hive.server2.enable.doAs`, or a trusted Spark Connect session's
 * user) reaches HBase as that user: its name travels in the cluster settings ([[UserKey]]), so
 * that every connection opened for them, on the driver and in tasks, is that user's own
 * ([[HBaseConnections]] shares connections by cluster settings, so never across users). With `process`, the default, every statement reaches HBase as
 * this process.
 */
object StatementIdentity extends Logging {

  /** The user a cluster's connections act for, among its settings; absent for the process's own identity. */
  val UserKey = "spark.sql.hbase.connection.user"

  // The driver's own UGIs of the users it has seen, for its other threads (the driver's read pool).
  private val seen = new ConcurrentHashMap[String, UserGroupInformation]()

  /**
   * The user the calling thread's statement runs as, when HBase is to see each statement's user
   * and it is not the one this process logged in as: the Spark Connect session's user, when the
   * server trusts it (`connectUser`, asked only in this mode), or else the thread's own user (a
   * Thrift session's, with doAs).
   */
  def statementUser(mode: String, connectUser: => Option[String] = None): Option[String] =
    if (!mode.equalsIgnoreCase("statement")) None
    else {
      val login = UserGroupInformation.getLoginUser
      connectUser match {
        case Some(name) if name != login.getUserName =>
          // As Hive's doAs does for a Thrift session: with Kerberos, a proxy user of the login,
          // which HBase's proxy-user settings must allow; without it, the name HBase takes at its word.
          seen.computeIfAbsent(
            name,
            _ =>
              if (UserGroupInformation.isSecurityEnabled) UserGroupInformation.createProxyUser(name, login)
              else UserGroupInformation.createRemoteUser(name)
          )
          Some(name)
        case Some(_) => None
        case None =>
          val current = UserGroupInformation.getCurrentUser
          if (current.getUserName == login.getUserName) None
          else {
            seen.put(current.getUserName, current)
            Some(current.getUserName)
          }
      }
    }

  private val announced = ConcurrentHashMap.newKeySet[String]()

  /** Says in the log, once per JVM, whom HBase sees as the caller of this process's statements. */
  def announce(mode: String, trustsConnectUser: Boolean): Unit =
    if (announced.add(mode.toLowerCase(java.util.Locale.ROOT))) {
      val login = UserGroupInformation.getLoginUser.getUserName
      if (mode.equalsIgnoreCase("statement"))
        logInfo(
          "HBase identity: per user (spark.sql.hbase.identity=statement). A statement that runs as another user " +
            s"than $login, such as a Thrift server session's user with hive.server2.enable.doAs, reaches HBase as that " +
            "user; Spark Connect sessions " +
            (if (trustsConnectUser) "as their user ids (trusted, not authenticated here)"
             else s"as $login, their user ids being untrusted")
        )
      else logInfo(
        s"HBase identity: shared (spark.sql.hbase.identity=$mode). Every statement reaches HBase as $login, " +
          "whichever user runs it: HBase's grants to other users do not apply"
      )
    }

  // Users of this JVM that reach HBase with a delegation token from the driver (tasks of executors).
  private val tokenUsers = new ConcurrentHashMap[String, UserGroupInformation]()

  /**
   * The HBase user a connection of `cluster` acts as, for the statement's user `name` that the
   * settings carry: the driver's UGI of that user (with Kerberos, a proxy user of the server's
   * login, which HBase's proxy-user settings must allow); in another JVM, with Kerberos, a user of
   * that name holding the delegation token the driver obtained for them ([[UserTokens]]); without
   * Kerberos, a user of that name, which HBase's simple authentication takes at its word. With
   * Kerberos and no token, it fails rather than reach HBase as anyone else.
   */
  def hbaseUser(name: String, settings: Map[String, String] = Map.empty): User = Option(seen.get(name)) match {
    case Some(ugi) => User.create(ugi)
    case None =>
      UserTokens.decode(settings) match {
        case Some(token) =>
          val ugi = tokenUsers.computeIfAbsent(name, UserGroupInformation.createRemoteUser(_))
          // A newer token of the same cluster replaces the one before; connections open pick it up.
          ugi.addToken(token)
          User.create(ugi)
        case None if !UserGroupInformation.isSecurityEnabled && !KerberosCredentials.wanted(settings) =>
          User.create(UserGroupInformation.createRemoteUser(name))
        case None =>
          throw new HBaseSQLException(
            s"The statement runs as $name, and this JVM has neither Kerberos credentials nor an HBase delegation " +
              s"token of $name to reach HBase with: with Kerberos, the driver obtains a token of each statement's " +
              "user for tasks outside its JVM, and this task came without one " +
              "(see 'Identities' in docs/deployment.md)"
          )
      }
  }

  /**
   * Where `settings` carry a delegation token of the process's own user (the tasks of a standalone
   * master, to which Spark sends none: [[HBaseClusterConf.fromSession]]), adds it to the current
   * user of a JVM that has no Kerberos login, whose connections then authenticate with it. The
   * driver keeps its login.
   */
  def holdProcessToken(settings: Map[String, String]): Unit =
    UserTokens.decode(settings).foreach { token =>
      val current = UserGroupInformation.getCurrentUser
      if (!current.hasKerberosCredentials) current.addToken(token)
    }

  /**
   * Runs `body` as the HBase user of `cluster`'s connections, for HBase tools that open a
   * connection of their own as the calling user (the bulk loader); as the calling user when the
   * cluster names no statement user.
   */
  def actAs[T](cluster: HBaseClusterConf)(body: => T): T =
    cluster.settings.get(UserKey) match {
      case None =>
        holdProcessToken(cluster.settings)
        body
      case Some(name) =>
        try hbaseUser(name, cluster.settings).runAs(new PrivilegedExceptionAction[T] { def run(): T = body })
        catch { case e: UndeclaredThrowableException if e.getCause != null => throw e.getCause }
    }
}
