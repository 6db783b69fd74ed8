// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.security.PrivilegedExceptionAction

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.security.token.AuthenticationTokenIdentifier
import org.apache.hadoop.io.Text
import org.apache.hadoop.security.UserGroupInformation
import org.apache.hadoop.security.token.Token
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException

class StatementIdentitySpec extends AnyFunSpec with Matchers {
  private def as[T](user: String)(body: => T): T =
    UserGroupInformation.createRemoteUser(user).doAs(new PrivilegedExceptionAction[T] { def run(): T = body })

  describe("the user a statement reaches HBase as") {
    it("is its own user with identity 'statement', when it runs as another user than the process's login") {
      as("alice-spec")(StatementIdentity.statementUser("statement")) shouldBe Some("alice-spec")
      as("alice-spec")(StatementIdentity.statementUser("STATEMENT")) shouldBe Some("alice-spec")
    }

    it("is the process's with identity 'process', whoever runs the statement") {
      as("alice-spec")(StatementIdentity.statementUser("process")) shouldBe None
    }

    it("is a trusted Spark Connect session's user id, whoever the thread runs as, with identity 'statement'") {
      StatementIdentity.statementUser("statement", Some("erin-spec")) shouldBe Some("erin-spec")
      as("alice-spec")(StatementIdentity.statementUser("statement", Some("erin-spec"))) shouldBe Some("erin-spec")
      StatementIdentity.hbaseUser("erin-spec").getName shouldBe "erin-spec"
    }

    it("is the process's for a Connect session of the process's own user id, or with identity 'process'") {
      val login = UserGroupInformation.getLoginUser.getUserName
      StatementIdentity.statementUser("statement", Some(login)) shouldBe None
      var asked = false
      StatementIdentity.statementUser("process", { asked = true; Some("erin-spec") }) shouldBe None
      withClue("Connect's sessions are not looked at unless HBase is to see each statement's user: ")(asked shouldBe
        false)
    }

    it("is the process's when the statement runs as the process's own login user") {
      val login = UserGroupInformation.getLoginUser.getUserName
      StatementIdentity.statementUser("statement") shouldBe None
      as(login)(StatementIdentity.statementUser("statement")) shouldBe None
    }
  }

  describe("the HBase user of a connection for a statement's user") {
    it("is that user as the driver saw it, in any thread of the JVM") {
      val ugi = UserGroupInformation.createRemoteUser("carol-spec")
      ugi.doAs(new PrivilegedExceptionAction[Option[String]] {
        def run(): Option[String] = StatementIdentity.statementUser("statement")
      }) shouldBe Some("carol-spec")
      // The same login (UGIs are equal when their subjects are the same).
      StatementIdentity.hbaseUser("carol-spec").getUGI shouldBe ugi
    }

    it("is a user of that name where the JVM has not seen it and HBase takes names at their word (no Kerberos)") {
      UserGroupInformation.isSecurityEnabled shouldBe false
      StatementIdentity.hbaseUser("dave-spec").getName shouldBe "dave-spec"
    }

    it("fails, naming the user, where HBase wants Kerberos and the JVM has neither their login nor a token") {
      val error = intercept[HBaseSQLException](
        StatementIdentity.hbaseUser("lena-spec", Map("hbase.security.authentication" -> "kerberos"))
      )
      error.getMessage should startWith(
        "The statement runs as lena-spec, and this JVM has neither Kerberos credentials nor an HBase delegation token"
      )
    }
  }

  describe("the process's own delegation token, which the tasks of a standalone master get from the driver") {
    it("goes with the tasks of a standalone or local-cluster master, to which Spark sends no tokens") {
      Seq("spark://host:7077", "local-cluster[2,1,1024]").map(HBaseClusterConf.sendsNoTokens) shouldBe Seq(true, true)
      Seq("local[2]", "local", "yarn", "k8s://https://host:6443").map(HBaseClusterConf.sendsNoTokens) shouldBe
        Seq(false, false, false, false)
    }

    it("joins the current user's credentials in a JVM without a Kerberos login, and nothing else's") {
      val id = new AuthenticationTokenIdentifier("spark-spec", 7, 1000L, 2000L)
      val token = new Token[AuthenticationTokenIdentifier](
        id.getBytes,
        Array[Byte](1),
        AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE,
        new Text("cluster-id")
      )
      val settings = Map(UserTokens.TokenKey -> token.encodeToUrlString())
      val executor = UserGroupInformation.createRemoteUser("executor-spec")
      val tokens = () => executor.getCredentials.getAllTokens.asScala.map(_.getIdentifier.toSeq).toSeq
      executor.doAs(new PrivilegedExceptionAction[Unit] {
        def run(): Unit = StatementIdentity.holdProcessToken(Map.empty)
      })
      tokens() shouldBe empty
      executor.doAs(new PrivilegedExceptionAction[Unit] {
        def run(): Unit = StatementIdentity.holdProcessToken(settings)
      })
      tokens() shouldBe Seq(id.getBytes.toSeq)
    }
  }

  describe("an HBase tool that connects as the calling user (the bulk loader)") {
    it("runs as the statement's user of the cluster, and as the caller where the cluster names none") {
      val cluster = HBaseClusterConf(Map("hbase.zookeeper.quorum" -> "zk1"))
      StatementIdentity.actAs(HBaseClusterConf(cluster.settings + (StatementIdentity.UserKey -> "mia-spec")))(
        UserGroupInformation.getCurrentUser.getShortUserName
      ) shouldBe "mia-spec"
      StatementIdentity.actAs(cluster)(UserGroupInformation.getCurrentUser) shouldBe
        UserGroupInformation.getCurrentUser
    }
  }
}
