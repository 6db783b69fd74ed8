// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.util.concurrent.ConcurrentHashMap

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.security.token.{AuthenticationTokenIdentifier, ClientTokenUtil}
import org.apache.hadoop.security.token.Token

import org.apache.spark.internal.Logging

/**
 * HBase delegation tokens of the users statements run as, for their tasks in other JVMs, with
 * Kerberos and `spark.sql.hbase.identity=statement`. An executor has no Kerberos login of a
 * statement's user, and HBase lets no token-authenticated client act for another user, so the
 * driver obtains a token for each user, through that user's own connection (a proxy user of the
 * server's login), and the token travels to the tasks in the cluster settings ([[TokenKey]]),
 * as the user's name does. A task's connection then authenticates with it as that user
 * ([[StatementIdentity.hbaseUser]]). On a standalone master, to whose executors Spark sends no
 * tokens, the process's own user gets one the same way, for every statement
 * ([[StatementIdentity.holdProcessToken]]).
 *
 * One token per cluster and user is kept on the driver; HBase's tokens cannot be renewed, so a
 * new one is obtained once three quarters of its life have passed, which leaves a statement
 * started just before that a quarter of the token's life (HBase's default: 7 days) to finish. A
 * user's tokens are dropped when their last session closes ([[dropUser]]).
 */
object UserTokens extends Logging {

  /** The statement's user's delegation token, encoded, among the cluster settings tasks get. */
  val TokenKey = "spark.sql.hbase.connection.token"

  private final case class Held(encoded: String, renewAt: Long)

  // Keyed by the cluster's settings with the user and without a token.
  private val held = new ConcurrentHashMap[HBaseClusterConf, Held]()

  /**
   * `cluster` (which names a statement's user) with a token of that user that has life left;
   * `obtain` asks HBase for a new one.
   */
  def withToken(
      cluster: HBaseClusterConf,
      now: Long = System.currentTimeMillis(),
      obtain: HBaseClusterConf => Token[AuthenticationTokenIdentifier] = fromHBase
  ): HBaseClusterConf = {
    val key = HBaseClusterConf(cluster.settings - TokenKey)
    // Per key, one thread obtains while the others wait for its token.
    val token = held.compute(key, (_, kept) => if (kept != null && now < kept.renewAt) kept else hold(key, obtain))
    HBaseClusterConf(key.settings + (TokenKey -> token.encoded))
  }

  /**
   * `cluster` as planned earlier, with a token that has life left if it carried one: for work
   * that outlives tokens (a stream's batches), on the driver.
   */
  def renewed(cluster: HBaseClusterConf, now: Long = System.currentTimeMillis()): HBaseClusterConf =
    if (cluster.settings.contains(TokenKey)) withToken(cluster, now) else cluster

  private def fromHBase(cluster: HBaseClusterConf): Token[AuthenticationTokenIdentifier] =
    HBaseConnections.withConnection(cluster)(ClientTokenUtil.obtainToken)

  private def hold(
      cluster: HBaseClusterConf,
      obtain: HBaseClusterConf => Token[AuthenticationTokenIdentifier]
  ): Held = {
    val user = cluster.settings.getOrElse(StatementIdentity.UserKey, "(the process)")
    val started = System.nanoTime()
    val token = obtain(cluster)
    val id = token.decodeIdentifier()
    val life = id.getExpirationDate - id.getIssueDate
    logInfo(
      s"Obtained an HBase delegation token of $user for tasks in ${(System.nanoTime() - started) / 1000000} ms, " +
        s"valid for ${life / 60000} minutes (sequence ${id.getSequenceNumber}, key ${id.getKeyId})"
    )
    Held(token.encodeToUrlString(), id.getIssueDate + life * 3 / 4)
  }

  /** The token `settings` carry for a task, if any. */
  def decode(settings: Map[String, String]): Option[Token[AuthenticationTokenIdentifier]] =
    settings.get(TokenKey).map { encoded =>
      val token = new Token[AuthenticationTokenIdentifier]()
      token.decodeFromUrlString(encoded)
      token
    }

  /** Forgets the tokens of `user` (their last session closed); the next statement of theirs obtains anew. */
  def dropUser(user: String): Unit = {
    val dropped = held.keySet.asScala.filter(_.settings.get(StatementIdentity.UserKey).contains(user))
    dropped.foreach(held.remove)
    if (dropped.nonEmpty) logInfo(s"Dropped the HBase delegation tokens of $user")
  }

  /** Whether the driver holds a token of `user` now, for any cluster. */
  def holdsFor(user: String): Boolean =
    held.keySet.asScala.exists(_.settings.get(StatementIdentity.UserKey).contains(user))
}
