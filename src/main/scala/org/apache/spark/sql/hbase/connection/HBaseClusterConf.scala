// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.io.File

import scala.jdk.CollectionConverters._

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path
import org.apache.hadoop.hbase.HBaseConfiguration

import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.hbase.common.HBaseSQLConf

/**
 * Which HBase cluster to talk to: the hbase-site.xml of HBASE_CONF_DIR (or `spark.hbase.conf.dir`)
 * overlaid with `spark.hbase.*` settings, where `spark.hbase.x` sets the HBase property `hbase.x`.
 * It is a plain map so that tasks rebuild exactly the driver's configuration, and it is the key
 * under which connections are shared.
 */
final case class HBaseClusterConf(settings: Map[String, String]) {

  def toConfiguration: Configuration = {
    val conf = HBaseConfiguration.create()
    settings.foreach { case (k, v) => conf.set(k, v) }
    conf
  }

  // A token is a secret: it travels with tasks but is never printed.
  override def toString: String =
    s"HBaseClusterConf(${settings.map { case (k, v) =>
        if (k == UserTokens.TokenKey) s"$k -> (secret)" else s"$k -> $v"
      }.mkString(", ")})"

  def zookeeperAddress: String = {
    val quorum = settings.getOrElse("hbase.zookeeper.quorum", "localhost")
    val port = settings.getOrElse("hbase.zookeeper.property.clientPort", "2181")
    s"$quorum:$port"
  }
}

object HBaseClusterConf {
  val SparkPrefix = "spark.hbase."
  val ConfDirKey = "spark.hbase.conf.dir"

  /** The session's cluster, for the user the calling thread's statement runs as ([[StatementIdentity]]). */
  def fromSession(session: SparkSession): HBaseClusterConf = {
    val cluster = fromSettings(session.conf.getAll, sys.env.get("HBASE_CONF_DIR"))
    // The application's setting, which no session may change: a user must not choose to be the server.
    val conf = session.sparkContext.getConf
    val mode = conf.get(HBaseSQLConf.Identity.key, HBaseSQLConf.Identity.defaultValueString)
    def connectUser =
      if (conf.getBoolean(HBaseSQLConf.IdentityTrustsConnectUser.key, false)) ConnectSessionUsers.userOf(session)
      else None
    StatementIdentity.statementUser(mode, connectUser) match {
      case Some(user) =>
        val forUser = HBaseClusterConf(cluster.settings + (StatementIdentity.UserKey -> user))
        // Tasks in other JVMs have no Kerberos login of the user: they get a delegation token of theirs.
        if (KerberosCredentials.wanted(forUser.settings) && !session.sparkContext.isLocal) UserTokens.withToken(forUser)
        else forUser
      case None =>
        // Spark sends its delegation tokens to no executor of a standalone master: the process's own goes with the tasks.
        if (KerberosCredentials.wanted(cluster.settings) && sendsNoTokens(session.sparkContext.master))
          UserTokens.withToken(cluster)
        else cluster
    }
  }

  /** Whether Spark sends no delegation tokens to the executors of `master`: a standalone master, or `local-cluster`. */
  def sendsNoTokens(master: String): Boolean = master.startsWith("spark://") || master.startsWith("local-cluster")

  def fromSettings(sparkSettings: Map[String, String], envConfDir: Option[String]): HBaseClusterConf = {
    val confDir = sparkSettings.get(ConfDirKey).orElse(envConfDir).filter(_.nonEmpty)
    val fromSite = confDir.map(siteSettings).getOrElse(Map.empty)
    val fromSpark = sparkSettings.collect {
      case (k, v) if k.startsWith(SparkPrefix) && k != ConfDirKey => k.stripPrefix("spark.") -> v
    }
    val connectionSettings = sparkSettings.filter(_._1 == HBaseConnections.IdleTimeoutKey)
    HBaseClusterConf(fromSite ++ fromSpark ++ connectionSettings)
  }

  // Every table lookup asks for the cluster settings: parse each hbase-site.xml once per version.
  private val parsedSites = scala.collection.concurrent.TrieMap.empty[(String, Long), Map[String, String]]

  /** Only the properties hbase-site.xml sets itself, not Hadoop's defaults. */
  private def siteSettings(dir: String): Map[String, String] = {
    val site = new File(dir, "hbase-site.xml")
    if (!site.isFile) Map.empty
    else parsedSites.getOrElseUpdate(
      (site.getAbsolutePath, site.lastModified()), {
        val conf = new Configuration(false)
        conf.addResource(new Path(site.getAbsolutePath))
        conf.iterator().asScala.map(e => e.getKey -> e.getValue).toMap
      }
    )
  }
}
