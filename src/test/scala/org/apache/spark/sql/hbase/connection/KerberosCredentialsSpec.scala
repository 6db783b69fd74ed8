// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import java.security.PrivilegedExceptionAction

import org.apache.hadoop.hbase.security.token.AuthenticationTokenIdentifier
import org.apache.hadoop.io.Text
import org.apache.hadoop.security.UserGroupInformation
import org.apache.hadoop.security.token.Token
import org.scalatest.funspec.AnyFunSpec
import org.scalatest.matchers.should.Matchers

import org.apache.spark.sql.hbase.common.HBaseSQLException

class KerberosCredentialsSpec extends AnyFunSpec with Matchers {
  private val secured = Map("hbase.zookeeper.quorum" -> "zk1", "hbase.security.authentication" -> "kerberos")

  /** `body` as a user with no Kerberos login (this JVM runs without Hadoop security), and `tokens`. */
  private def asUser[T](tokens: Token[_]*)(body: => T): T = {
    val user = UserGroupInformation.createRemoteUser("carol")
    tokens.foreach(t => user.addToken(t.asInstanceOf[Token[AuthenticationTokenIdentifier]]))
    user.doAs(new PrivilegedExceptionAction[T] { override def run(): T = body })
  }

  private def token(kind: Text) =
    new Token[AuthenticationTokenIdentifier](Array[Byte](1), Array[Byte](2), kind, new Text("cluster-id"))

  describe("the credentials a JVM needs for a Kerberos-secured HBase") {
    it("are missing without a Kerberos login and without an HBase delegation token, and the reason names the user") {
      asUser()(KerberosCredentials.missing(secured)).get should include(
        "user carol has neither a Kerberos login nor an HBase delegation token in this JVM"
      )
      asUser(token(new Text("HDFS_DELEGATION_TOKEN")))(KerberosCredentials.missing(secured)) shouldBe defined
    }

    it("are there with an HBase delegation token, as Spark hands executors") {
      asUser(token(AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE))(KerberosCredentials.missing(secured)) shouldBe None
    }

    it("are the connection's user's, not the calling thread's, for a statement's user") {
      val statementUser = UserGroupInformation.createRemoteUser("nora-spec")
      statementUser.addToken(token(AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE))
      asUser()(KerberosCredentials.missing(secured, statementUser)) shouldBe None
      asUser(token(AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE))(
        KerberosCredentials.missing(secured, UserGroupInformation.createRemoteUser("olga-spec"))
      ).get should include("user olga-spec has neither")
    }

    it("are not checked for an HBase without Kerberos, or when the HBase client logs in from its own keytab") {
      asUser()(KerberosCredentials.missing(secured - "hbase.security.authentication")) shouldBe None
      asUser()(KerberosCredentials.missing(secured + ("hbase.security.authentication" -> "simple"))) shouldBe None
      asUser()(KerberosCredentials.missing(secured + ("hbase.client.keytab.file" -> "/k/etl.keytab"))) shouldBe None
    }

    it("fail a connection before it is opened, with the Kerberos advice and the quorum") {
      val cluster = HBaseClusterConf(secured + ("hbase.zookeeper.property.clientPort" -> "1"))
      // Port 1: were the check not first, the connection would fail on ZooKeeper instead.
      val error = asUser()(intercept[HBaseSQLException](HBaseConnections.withConnection(cluster)(identity)))
      error.getMessage should
        startWith("HBase at ZooKeeper zk1:1 did not authenticate this client: user carol has neither")
      error.getMessage should include("spark.security.credentials.hbase.enabled")
    }
  }
}
