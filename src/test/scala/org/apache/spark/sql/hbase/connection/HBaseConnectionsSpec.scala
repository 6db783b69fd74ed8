// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import org.apache.spark.sql.hbase.{HBaseSuite, Waits}
import org.apache.spark.sql.hbase.common.HBaseSQLException

class HBaseConnectionsSpec extends HBaseSuite {

  /** The test cluster under its own key, so closing it does not disturb the other suites. */
  private def clusterWithIdleTimeout(ms: Long) =
    HBaseClusterConf(cluster.settings + (HBaseConnections.IdleTimeoutKey -> ms.toString))

  describe("the shared HBase connection") {
    it("is one connection per cluster configuration, however many borrowers") {
      val conf = clusterWithIdleTimeout(60000)
      val first = HBaseConnections.borrow(conf)
      val second = HBaseConnections.borrow(conf)
      try first should be theSameInstanceAs second
      finally { HBaseConnections.release(conf); HBaseConnections.release(conf) }
      first.getAdmin.tableExists(org.apache.hadoop.hbase.TableName.META_TABLE_NAME) shouldBe true
    }

    it("is closed once nobody has used it for the idle timeout, and reopened on demand") {
      val conf = clusterWithIdleTimeout(300)
      val connection = HBaseConnections.withConnection(conf)(identity)
      Waits.until("the idle connection closed", seconds = 10)(connection.isClosed)
      connection.isClosed shouldBe true
      val reopened = HBaseConnections.withConnection(conf)(identity)
      reopened should not be theSameInstanceAs(connection)
      reopened.isClosed shouldBe false
    }

    it("stays open while borrowed, even past the idle timeout") {
      val conf = clusterWithIdleTimeout(200)
      val connection = HBaseConnections.borrow(conf)
      try {
        // An idle connection of the same timeout, under another key, closes: the timeout has passed.
        val idle = HBaseClusterConf(conf.settings + ("spark.hbase.test.twin" -> "idle"))
        val closing = HBaseConnections.withConnection(idle)(identity)
        Waits.until("an idle connection of the same timeout closed", seconds = 10)(closing.isClosed)
        connection.isClosed shouldBe false
      } finally HBaseConnections.release(conf)
    }
  }

  describe("the connections of the users statements run as") {
    it("are one per user, never another user's, and the statement's settings name its user") {
      def as[T](user: String)(body: => T): T = org.apache.hadoop.security.UserGroupInformation.createRemoteUser(user)
        .doAs(new java.security.PrivilegedExceptionAction[T] { def run(): T = body })
      // The application's setting (a session cannot change it), as a server started with it has.
      val key = org.apache.spark.sql.hbase.common.HBaseSQLConf.Identity.key
      intercept[org.apache.spark.sql.AnalysisException](sql(s"SET $key=process")).getMessage should
        include("CANNOT_MODIFY_STATIC_CONFIG")
      spark.sparkContext.conf.set(key, "statement")
      try {
        val (alice, bob) = (as("alice")(cluster), as("bob")(cluster))
        alice.settings.get(StatementIdentity.UserKey) shouldBe Some("alice")
        bob.settings.get(StatementIdentity.UserKey) shouldBe Some("bob")
        withClue("the process's own statements: ")(cluster.settings.get(StatementIdentity.UserKey) shouldBe None)
        val first = HBaseConnections.withConnection(alice)(identity)
        val opened = HBaseConnections.openedCount(alice)
        HBaseConnections.withConnection(alice)(identity) should be theSameInstanceAs first
        HBaseConnections.withConnection(bob)(identity) should not be theSameInstanceAs(first)
        HBaseConnections.withConnection(cluster)(identity) should not be theSameInstanceAs(first)
        withClue("alice's second borrow opens none: ")(HBaseConnections.openedCount(alice) shouldBe opened)
        // A statement run as alice (HBase here checks no rights: tests/test_identity.py has one that does).
        val t = uniqueName("identity")
        sql(s"CREATE TABLE $t (k INT, v INT, PRIMARY KEY (k)) MAPPED BY ($t, COLS=[v=f.v]) SPLIT ON ((5))")
        sql(s"INSERT INTO $t SELECT CAST(id AS INT), CAST(id AS INT) FROM range(10)")
        as("alice")(sql(s"SELECT sum(v) FROM $t WHERE k >= 0").collect().head.getLong(0)) shouldBe 45L
      } finally spark.sparkContext.conf.remove(key)
    }
  }

  describe("an HBase that cannot be reached") {
    it("fails a statement within the client's timeouts, naming its ZooKeeper and what to check") {
      val socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))
      val deadPort = socket.getLocalPort
      socket.close()
      val started = System.nanoTime()
      val error = withConf("spark.hbase.zookeeper.property.clientPort" -> deadPort.toString) {
        intercept[HBaseSQLException](sql("SELECT * FROM no_such_table_anywhere").collect())
      }
      val seconds = (System.nanoTime() - started) / 1e9
      error.getMessage should include(
        s"HBase could not be reached at ZooKeeper 127.0.0.1:$deadPort: no ZooKeeper server of the quorum accepts connections"
      )
      error.getMessage should include("Check that HBase is running")
      withClue(s"took $seconds s, not the client's minutes of retries: ")(seconds should be < 30.0)
    }

    it("is told apart from other failures by the causes the HBase client gives") {
      def wrapped(cause: Throwable) =
        new java.io.IOException("Failed after attempts=16", new java.io.IOException(cause))
      HBaseUnreachable.reason(wrapped(
        new org.apache.hadoop.hbase.shaded.org.apache.zookeeper.KeeperException.ConnectionLossException()
      )) shouldBe
        Some("ZooKeeper does not answer")
      HBaseUnreachable.reason(wrapped(new org.apache.hadoop.hbase.MasterNotRunningException("no master"))) shouldBe
        Some("the HBase master is not running (no master)")
      HBaseUnreachable.reason(wrapped(new java.net.ConnectException("Connection refused"))) shouldBe
        Some("a connection was refused (Connection refused)")
      val refusedCall = "Call to address=127.0.0.1:35645 failed on connection exception: Connection refused"
      HBaseUnreachable.reason(wrapped(new java.net.ConnectException(refusedCall))) shouldBe
        Some(s"the HBase server at 127.0.0.1:35645 (a region server or the master) does not answer ($refusedCall)")
      HBaseUnreachable.reason(
        wrapped(new org.apache.hadoop.hbase.ipc.FailedServerException("in the failed servers list"))
      ) shouldBe
        Some("a region server does not answer (in the failed servers list)")
      HBaseUnreachable.reason(wrapped(new org.apache.hadoop.hbase.TableNotFoundException("t"))) shouldBe None
      HBaseUnreachable.reason(new java.io.IOException("disk full")) shouldBe None
    }

    it("is told apart from an HBase that will not authenticate the client, which gets its own advice") {
      // What the HBase client says when a secured HBase meets a client without Kerberos credentials.
      val noCredentials = new org.apache.hadoop.hbase.MasterNotRunningException(new java.io.IOException(
        "Call to address=127.0.0.1:16000 failed on local exception: java.io.IOException: " +
          "java.lang.RuntimeException: Found no valid authentication method from options"
      ))
      HBaseUnreachable.unauthenticated(new java.io.IOException("Failed after attempts=3", noCredentials)).get should
        include(
          "Found no valid authentication method"
        )
      HBaseUnreachable.unauthenticated(new javax.security.sasl.SaslException("GSS initiate failed")) shouldBe
        Some("GSS initiate failed")
      HBaseUnreachable.unauthenticated(new java.net.ConnectException("Connection refused")) shouldBe None
      val cluster =
        HBaseClusterConf(Map("hbase.zookeeper.quorum" -> "zk1", "hbase.zookeeper.property.clientPort" -> "2181"))
      val error =
        intercept[HBaseSQLException](HBaseUnreachable.translate(cluster)(new java.io.IOException("x", noCredentials)))
      error.getMessage should startWith("HBase at ZooKeeper zk1:2181 did not authenticate this client: ")
      error.getMessage should include("spark.hbase.security.authentication=kerberos")
    }
  }
}
