// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase

import java.nio.file.{Files, Path, Paths}

import scala.jdk.CollectionConverters._

import com.fasterxml.jackson.databind.ObjectMapper
import com.sun.tools.attach.VirtualMachine
import javax.management.ObjectName
import javax.management.remote.{JMXConnectorFactory, JMXServiceURL}

/**
 * HBase's own gauges of the embedded region servers the tests run against, read over JMX by
 * attaching to their JVMs (as the soak benchmark does). Only for the embedded HBase: an external
 * one's JVMs are not on this machine.
 */
object RegionServerGauges {
  private val Server = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Server")

  /** The embedded HBase's data directory, whose conf/ the tests were given, when it is one. */
  private def dataDir: Option[Path] = sys.env.get("HBASE_CONF_DIR").map(Paths.get(_).getParent)
    .filter(d => Files.exists(d.resolve("hbase-local.json")) && Files.exists(d.resolve("hbase.pid")))

  def embedded: Boolean = dataDir.isDefined

  /** The pids of the region servers: the first in HBase's JVM, the others in JVMs of their own. */
  def pids: Seq[String] = dataDir.toSeq.flatMap { dir =>
    val state = new ObjectMapper().readTree(dir.resolve("hbase-local.json").toFile)
    val others = Option(state.get("region_servers")).toSeq.flatMap(_.elements().asScala.toSeq)
      .flatMap(rs => Option(rs.get("pid")).filterNot(_.isNull).map(_.asText()))
    Files.readString(dir.resolve("hbase.pid")).trim +: others
  }

  /**
   * Scanners open in all region servers (HBase's activeScanners gauge), once every region server
   * has registered its metrics. HBase refreshes what JMX shows every 10 seconds or so.
   */
  def activeScanners(): Option[Long] = {
    val gauges = pids.map(pid => gauge(pid, "activeScanners"))
    if (gauges.forall(_.isDefined)) Some(gauges.flatten.sum) else None
  }

  /** The names of the attributes of the region servers' per-table metrics (HBase's `RegionServer,sub=Tables`). */
  def tableMetricNames(): Seq[String] = pids.flatMap { pid =>
    val vm = VirtualMachine.attach(pid)
    try {
      val connector = JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))
      try {
        val server = connector.getMBeanServerConnection
        // HBase registers the bean anew as its tables change: it can go between the two calls.
        try server.getMBeanInfo(Tables).getAttributes.map(_.getName).toSeq
        catch { case _: javax.management.InstanceNotFoundException => Nil }
      } finally connector.close()
    } finally vm.detach()
  }

  private val Tables = new ObjectName("Hadoop:service=HBase,name=RegionServer,sub=Tables")

  private def gauge(pid: String, name: String): Option[Long] = {
    val vm = VirtualMachine.attach(pid)
    try {
      val connector = JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent()))
      try {
        val server = connector.getMBeanServerConnection
        if (!server.isRegistered(Server)) None
        else Some(server.getAttribute(Server, name).asInstanceOf[Number].longValue())
      } finally connector.close()
    } finally vm.detach()
  }
}
