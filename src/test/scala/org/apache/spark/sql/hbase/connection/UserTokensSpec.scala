// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import org.apache.hadoop.hbase.security.token.AuthenticationTokenIdentifier
import org.apache.hadoop.io.Text
import org.apache.hadoop.security.token.Token
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.scheduler.SparkListenerEvent

class UserTokensSpec extends AnyFunSpec with Matchers {
  private val Hour = 3600L * 1000
  private val issued = 1000L * Hour

  private def clusterOf(user: String) = HBaseClusterConf(Map(
    "hbase.zookeeper.quorum" -> "zk1",
    "hbase.security.authentication" -> "kerberos",
    StatementIdentity.UserKey -> user
  ))

  /** HBase's part, as a counter of the tokens it gave: each valid 8 hours from its issue. */
  private final class TokenIssuer {
    var issuedAt: Long = issued
    var issuedCount = 0
    def apply(cluster: HBaseClusterConf): Token[AuthenticationTokenIdentifier] = {
      issuedCount += 1
      val user = cluster.settings(StatementIdentity.UserKey)
      val id = new AuthenticationTokenIdentifier(user, 7, issuedAt, issuedAt + 8 * Hour)
      new Token[AuthenticationTokenIdentifier](
        id.getBytes,
        Array[Byte](issuedCount.toByte),
        AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE,
        new Text("cluster-id")
      )
    }
  }

  describe("a statement user's delegation token for tasks") {
    it("travels in the cluster settings, is obtained once, and again after three quarters of its life") {
      val hbase = new TokenIssuer
      val cluster = clusterOf("gina-spec")
      val first = UserTokens.withToken(cluster, issued, hbase(_))
      val token = UserTokens.decode(first.settings).get
      token.decodeIdentifier().getUsername shouldBe "gina-spec"
      UserTokens.withToken(cluster, issued + 6 * Hour - 1, hbase(_)) shouldBe first
      hbase.issuedCount shouldBe 1
      hbase.issuedAt = issued + 6 * Hour
      val renewed = UserTokens.withToken(cluster, issued + 6 * Hour, hbase(_))
      hbase.issuedCount shouldBe 2
      UserTokens.decode(renewed.settings).get.getPassword should not equal token.getPassword
      withClue("a cluster that carries a token already is keyed without it: ")(
        UserTokens.withToken(first, issued + 6 * Hour, hbase(_)) shouldBe renewed
      )
      UserTokens.dropUser("gina-spec")
    }

    it("is renewed for work planned earlier (a stream's batches), and a cluster without one stays as it is") {
      val hbase = new TokenIssuer
      val planned = UserTokens.withToken(clusterOf("pia-spec"), issued, hbase(_))
      UserTokens.renewed(planned, issued + Hour) shouldBe planned
      hbase.issuedAt = issued + 6 * Hour
      UserTokens.withToken(clusterOf("pia-spec"), issued + 6 * Hour, hbase(_))
      UserTokens.renewed(planned, issued + 6 * Hour + 1).settings(UserTokens.TokenKey) should not equal
        planned.settings(UserTokens.TokenKey)
      UserTokens.renewed(clusterOf("pia-spec")) shouldBe clusterOf("pia-spec")
      UserTokens.dropUser("pia-spec")
    }

    it("is each user's own") {
      val hbase = new TokenIssuer
      val gina = UserTokens.withToken(clusterOf("gina-spec"), issued, hbase(_))
      val hank = UserTokens.withToken(clusterOf("hank-spec"), issued, hbase(_))
      hbase.issuedCount shouldBe 2
      UserTokens.decode(hank.settings).get.decodeIdentifier().getUsername shouldBe "hank-spec"
      UserTokens.decode(gina.settings).get.decodeIdentifier().getUsername shouldBe "gina-spec"
      Seq("gina-spec", "hank-spec").foreach(UserTokens.dropUser)
    }

    it("is never printed with the cluster settings") {
      val cluster = UserTokens.withToken(clusterOf("gina-spec"), issued, new TokenIssuer()(_))
      val encoded = cluster.settings(UserTokens.TokenKey)
      cluster.toString should (include(s"${UserTokens.TokenKey} -> (secret)") and not include encoded)
      cluster.toString should include("hbase.zookeeper.quorum -> zk1")
      UserTokens.dropUser("gina-spec")
    }

    it("is the credential of the user's connections in a JVM that has not seen the user, a newer one replacing it") {
      val hbase = new TokenIssuer
      val first = UserTokens.withToken(clusterOf("ivan-spec"), issued, hbase(_))
      val ugi = StatementIdentity.hbaseUser("ivan-spec", first.settings).getUGI
      ugi.getUserName shouldBe "ivan-spec"
      ugi.getTokens should contain only UserTokens.decode(first.settings).get
      hbase.issuedAt = issued + 7 * Hour
      val renewed = UserTokens.withToken(clusterOf("ivan-spec"), issued + 7 * Hour, hbase(_))
      StatementIdentity.hbaseUser("ivan-spec", renewed.settings).getUGI shouldBe ugi
      ugi.getTokens should contain only UserTokens.decode(renewed.settings).get
      UserTokens.dropUser("ivan-spec")
    }
  }

  describe("a user's last session closing") {

    /** One of the servers' session events, built as they build it (their classes are private to their packages). */
    def event(className: String, args: AnyRef*): SparkListenerEvent =
      Class.forName(className).getConstructors.head.newInstance(args: _*).asInstanceOf[SparkListenerEvent]
    val thrift = "org.apache.spark.sql.hive.thriftserver.ui.SparkListenerThriftServerSession"
    val connect = "org.apache.spark.sql.connect.service.SparkListenerConnectSession"

    it("drops the user's tokens on the driver, and not before (Thrift server)") {
      val ends = new SessionEnds
      UserTokens.withToken(clusterOf("judy-spec"), issued, new TokenIssuer()(_))
      ends.onOtherEvent(event(s"${thrift}Created", "127.0.0.1", "s1", "judy-spec", Long.box(1L)))
      ends.onOtherEvent(event(s"${thrift}Created", "127.0.0.1", "s2", "judy-spec", Long.box(2L)))
      ends.onOtherEvent(event(s"${thrift}Closed", "s1", Long.box(3L)))
      withClue("judy has another session open: ")(UserTokens.holdsFor("judy-spec") shouldBe true)
      ends.onOtherEvent(event(s"${thrift}Closed", "s2", Long.box(4L)))
      UserTokens.holdsFor("judy-spec") shouldBe false
    }

    it("drops the user's tokens on the driver (Spark Connect server)") {
      val ends = new SessionEnds
      UserTokens.withToken(clusterOf("karl-spec"), issued, new TokenIssuer()(_))
      UserTokens.holdsFor("karl-spec") shouldBe true
      val tags = Map.empty[String, String]
      ends.onOtherEvent(event(s"${connect}Started", "c1", "karl-spec", Long.box(1L), tags))
      ends.onOtherEvent(event(s"${connect}Closed", "c1", "karl-spec", Long.box(2L), tags))
      UserTokens.holdsFor("karl-spec") shouldBe false
    }
  }
}
