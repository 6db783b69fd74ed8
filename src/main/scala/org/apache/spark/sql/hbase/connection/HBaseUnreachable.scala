// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.io.IOException
import java.net.{ConnectException, InetSocketAddress, NoRouteToHostException, Socket, UnknownHostException}

import scala.util.Try

import org.apache.hadoop.hbase.{MasterNotRunningException, ZooKeeperConnectionException}

import org.apache.spark.sql.hbase.common.{Causes, HBaseSQLException}

/**
 * HBase that cannot be reached at all (ZooKeeper, the master or a region server refuse or never
 * answer), or that will not authenticate us, told apart from every other failure so that the
 * user reads which HBase it was and what to check, instead of the client's innermost exception.
 */
object HBaseUnreachable {

  /** How long the check below waits for one ZooKeeper server to accept a connection. */
  val ZooKeeperConnectTimeoutMs = 3000

  /**
   * Fails at once when no server of the ZooKeeper quorum accepts a connection, rather than after
   * the HBase client's retries (minutes, with its defaults). Clients that find HBase some other way
   * than through ZooKeeper are not checked.
   */
  def checkZooKeeper(cluster: HBaseClusterConf): Unit = {
    val viaZooKeeper = cluster.settings.get("hbase.client.registry.impl").forall(_.contains("ZKConnectionRegistry"))
    val servers = zooKeeperServers(cluster)
    if (viaZooKeeper && servers.nonEmpty && !servers.exists(accepts)) {
      throw error(
        cluster,
        "no ZooKeeper server of the quorum accepts connections",
        new ConnectException(s"nothing listens at ${servers.map { case (h, p) => s"$h:$p" }.mkString(", ")}")
      )
    }
  }

  private def zooKeeperServers(cluster: HBaseClusterConf): Seq[(String, Int)] = {
    val defaultPort =
      cluster.settings.get("hbase.zookeeper.property.clientPort").flatMap(p => Try(p.trim.toInt).toOption)
        .getOrElse(2181)
    cluster.settings.getOrElse("hbase.zookeeper.quorum", "localhost").split(",").map(_.trim).filter(_.nonEmpty).toSeq
      .map { server =>
        server.lastIndexOf(':') match {
          case -1 => (server, defaultPort)
          case at => (server.take(at), Try(server.drop(at + 1).toInt).getOrElse(defaultPort))
        }
      }
  }

  private def accepts(server: (String, Int)): Boolean = {
    val socket = new Socket()
    try { socket.connect(new InetSocketAddress(server._1, server._2), ZooKeeperConnectTimeoutMs); true }
    catch { case _: IOException => false }
    finally socket.close()
  }

  /**
   * Rethrows a failure to reach HBase as [[error]], and HBase refusing to authenticate us as
   * [[unauthenticatedError]]; leaves every other failure alone (an access denied among them).
   */
  def translate(cluster: HBaseClusterConf): PartialFunction[Throwable, Nothing] = {
    case e: IOException if unauthenticated(e).isDefined =>
      throw unauthenticatedError(cluster, unauthenticated(e).get, e)
    case e: IOException if reason(e).isDefined => throw error(cluster, reason(e).get, e)
  }

  /** The SASL failure in `e`'s causes, if HBase would not authenticate the client. */
  def unauthenticated(e: Throwable): Option[String] = Causes.of(e)
    .flatMap(c => Option(c.getMessage).filter(_.trim.nonEmpty)).map(_.linesIterator.next())
    .find(m =>
      m.contains("Found no valid authentication method") || m.contains("GSS initiate failed") ||
        m.contains("SASL authentication failed")
    )

  def unauthenticatedError(cluster: HBaseClusterConf, reason: String, cause: Throwable): HBaseSQLException =
    new HBaseSQLException(
      s"HBase at ZooKeeper ${cluster.zookeeperAddress} did not authenticate this client: $reason. A Kerberos-secured " +
        "HBase needs spark.hbase.security.authentication=kerberos, the principals of its servers " +
        "(spark.hbase.master.kerberos.principal, spark.hbase.regionserver.kerberos.principal), and a logged-in user: " +
        "a keytab on the driver (spark.kerberos.keytab and spark.kerberos.principal, with " +
        "hadoop.security.authentication=kerberos in the core-site.xml of HADOOP_CONF_DIR) and HBase delegation tokens " +
        "on the executors, which Spark obtains when spark.security.credentials.hbase.enabled is true and Spark's Hadoop " +
        "configuration names this HBase (spark.hadoop.hbase.* settings, or hbase-site.xml in HADOOP_CONF_DIR) on YARN, " +
        "Kubernetes and local masters; on a standalone master the plugin sends the driver's own. See 'Kerberos' in " +
        "docs/deployment.md.",
      Option(cause)
    )

  def error(cluster: HBaseClusterConf, reason: String, cause: Throwable): HBaseSQLException =
    new HBaseSQLException(
      s"HBase could not be reached at ZooKeeper ${cluster.zookeeperAddress}: $reason. Check that HBase is running " +
        "and that hbase.zookeeper.quorum and hbase.zookeeper.property.clientPort (as spark.hbase.* settings, or " +
        "in HBASE_CONF_DIR) name its ZooKeeper; spark.hbase.client.retries.number, spark.hbase.client.operation.timeout " +
        "and spark.hbase.zookeeper.recovery.retry bound how long a client tries.",
      Some(cause)
    )

  /** What in `e`'s causes says that HBase was not reached, if anything does. */
  def reason(e: Throwable): Option[String] = Causes.of(e).collectFirst {
    // By name: the HBase client's ZooKeeper classes are relocated in its shaded jar.
    case c
        if c.getClass.getName.endsWith("KeeperException$ConnectionLossException") ||
          c.getClass.getName.endsWith("KeeperException$SessionExpiredException") => "ZooKeeper does not answer"
    case c: ZooKeeperConnectionException => s"ZooKeeper does not answer (${c.getMessage})"
    case c: IOException
        if Option(c.getMessage).exists(m => m.startsWith("Zookeeper ") && m.contains("could not be completed")) =>
      s"ZooKeeper does not answer (${c.getMessage})"
    case c: MasterNotRunningException => s"the HBase master is not running (${c.getMessage})"
    // The client's memory of a region server that refused connections a moment ago.
    case c if c.getClass.getName.endsWith(".FailedServerException") =>
      s"a region server does not answer (${c.getMessage})"
    // HBase's RPC client names the server it called: a region server or the master, down or restarting.
    case c: ConnectException if rpcAddress(c).isDefined =>
      s"the HBase server at ${rpcAddress(c).get} (a region server or the master) does not answer (${c.getMessage})"
    case c: ConnectException => s"a connection was refused (${c.getMessage})"
    case c: NoRouteToHostException => s"no route to host (${c.getMessage})"
    case c: UnknownHostException => s"unknown host (${c.getMessage})"
  }

  private val RpcCall = """^Call to address=(\S+) failed on connection exception""".r.unanchored

  /** The server an HBase RPC call could not connect to, as the HBase client's message names it. */
  private def rpcAddress(c: ConnectException): Option[String] = Option(c.getMessage).collect { case RpcCall(address) =>
    address
  }
}
