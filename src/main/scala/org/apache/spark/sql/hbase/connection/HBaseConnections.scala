// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.util.concurrent.{Executors, ScheduledExecutorService, ThreadFactory, TimeUnit}

import scala.collection.mutable

import org.apache.hadoop.hbase.client.{Connection, ConnectionFactory}
import org.apache.hadoop.security.UserGroupInformation

import org.apache.spark.internal.Logging
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * One shared HBase Connection per JVM and cluster configuration, which names the user it acts for
 * when that is not this process ([[StatementIdentity]]): never one user's connection for another.
 * Connections are heavyweight and thread-safe, so every task in an executor borrows the same one;
 * a connection nobody has used for the idle timeout is closed.
 */
object HBaseConnections extends Logging {

  /** The idle timeout travels to executors inside the cluster settings, under its SQL conf key. */
  val IdleTimeoutKey: String = HBaseSQLConf.ConnectionIdleTimeoutMs.key

  private final class Entry(val connection: Connection, val idleTimeoutMs: Long) {
    var borrowers = 0
    var lastReleased: Long = System.currentTimeMillis()
  }

  private val entries = mutable.Map.empty[HBaseClusterConf, Entry]
  private val opened = mutable.Map.empty[HBaseClusterConf, Int].withDefaultValue(0)

  private lazy val reaper: ScheduledExecutorService = {
    val executor = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
      override def newThread(r: Runnable): Thread = {
        val t = new Thread(r, "hbase-connection-reaper"); t.setDaemon(true); t
      }
    })
    executor.scheduleWithFixedDelay(() => closeIdle(System.currentTimeMillis()), 1, 1, TimeUnit.SECONDS)
    executor
  }

  /**
   * Runs `body` with the shared connection; a failure to reach HBase at all, and an access HBase
   * denies, are said as such (see [[HBaseUnreachable]], [[HBaseAccessDenied]]).
   */
  def withConnection[T](cluster: HBaseClusterConf)(body: Connection => T): T = {
    val connection = try borrow(cluster)
    catch HBaseUnreachable.translate(cluster)
    try body(connection)
    catch HBaseUnreachable.translate(cluster).orElse(HBaseAccessDenied.translate())
    finally release(cluster)
  }

  def borrow(cluster: HBaseClusterConf): Connection = synchronized {
    reaper
    // The statement's user, when it is not this process (StatementIdentity); else the current user, as HBase takes it.
    // Asked at every borrow: a task may bring a newer token of its user than the connection's.
    val user = cluster.settings.get(StatementIdentity.UserKey) match {
      case Some(name) => Some(StatementIdentity.hbaseUser(name, cluster.settings))
      case None =>
        StatementIdentity.holdProcessToken(cluster.settings)
        None
    }
    val key = keyOf(cluster)
    val entry = entries.get(key).filterNot(_.connection.isClosed).getOrElse {
      KerberosCredentials.missing(cluster.settings, user.fold(UserGroupInformation.getCurrentUser)(_.getUGI))
        .foreach { reason =>
          throw HBaseUnreachable.unauthenticatedError(cluster, reason, null)
        }
      HBaseUnreachable.checkZooKeeper(cluster)
      val timeout = cluster.settings.get(
        IdleTimeoutKey
      ).map(_.toLong).getOrElse(HBaseSQLConf.ConnectionIdleTimeoutMs.defaultValue.get)
      logInfo(s"Opening HBase connection to ${cluster.zookeeperAddress}${user.fold("")(u => s" as ${u.getName}")}")
      val conf = cluster.toConfiguration
      val connection = user.fold(ConnectionFactory.createConnection(conf))(ConnectionFactory.createConnection(conf, _))
      val created = new Entry(connection, timeout)
      entries(key) = created
      opened(key) += 1
      created
    }
    entry.borrowers += 1
    entry.connection
  }

  // A user's connection outlives their tokens: a newer token joins the user's credentials instead.
  private def keyOf(cluster: HBaseClusterConf): HBaseClusterConf =
    if (cluster.settings.contains(UserTokens.TokenKey)) HBaseClusterConf(cluster.settings - UserTokens.TokenKey)
    else cluster

  def release(cluster: HBaseClusterConf): Unit = synchronized {
    entries.get(keyOf(cluster)).foreach { entry =>
      entry.borrowers = math.max(0, entry.borrowers - 1)
      entry.lastReleased = System.currentTimeMillis()
    }
  }

  /** How many reads and calls hold this cluster's shared connection now; 0 when every one gave it back. */
  def borrowers(cluster: HBaseClusterConf): Int = synchronized(entries.get(keyOf(cluster)).fold(0)(_.borrowers))

  /** How many connections to this cluster this JVM has opened so far; shows that tasks share one. */
  def openedCount(cluster: HBaseClusterConf): Int = synchronized(opened(keyOf(cluster)))

  /**
   * Closes the connections of `user` (their last session closed) that nobody uses now; one in use
   * closes when it has been idle for its timeout.
   */
  def closeUser(user: String): Unit = {
    val idle = synchronized {
      val ofUser = entries.filter { case (cluster, e) =>
        e.borrowers == 0 && cluster.settings.get(StatementIdentity.UserKey).contains(user)
      }
      ofUser.keys.foreach(entries.remove)
      ofUser.values.toSeq
    }
    idle.foreach(close)
  }

  private def close(e: Entry): Unit = {
    logInfo("Closing idle HBase connection")
    try e.connection.close()
    catch { case t: Throwable => logWarning("Closing an HBase connection failed", t) }
  }

  private[connection] def closeIdle(now: Long): Unit = {
    val idle = synchronized {
      val expired = entries.filter { case (_, e) => e.borrowers == 0 && now - e.lastReleased >= e.idleTimeoutMs }
      expired.keys.foreach(entries.remove)
      expired.values.toSeq
    }
    idle.foreach(close)
  }
}
