// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.connection

import scala.jdk.CollectionConverters._

import org.apache.hadoop.hbase.AuthUtil
import org.apache.hadoop.hbase.security.token.AuthenticationTokenIdentifier
import org.apache.hadoop.security.UserGroupInformation

/**
 * Whether this JVM has anything to authenticate to a Kerberos-secured HBase with, checked before
 * connecting. Without a Kerberos login or an HBase delegation token, the HBase client finds no way
 * to authenticate and every call fails; a write would retry each row's region lookup for
 * minutes before it says so.
 */
object KerberosCredentials {

  /** Whether the HBase of `settings` authenticates its clients with Kerberos. */
  def wanted(settings: Map[String, String]): Boolean =
    settings.get("hbase.security.authentication").exists(_.trim.equalsIgnoreCase("kerberos"))

  /**
   * Why this JVM certainly cannot authenticate to the HBase of `settings` as `user`, if it cannot:
   * HBase wants Kerberos, the HBase client will not log in by itself (hbase.client.keytab.*), and
   * the user (or the real user behind a proxy user) has no Kerberos login and no HBase token.
   */
  def missing(
      settings: Map[String, String],
      user: UserGroupInformation = UserGroupInformation.getCurrentUser
  ): Option[String] = {
    val kerberos = wanted(settings)
    val clientLogsIn = settings.contains(AuthUtil.HBASE_CLIENT_KEYTAB_FILE)
    // Another SASL provider selector may know other ways to authenticate.
    val builtInSelector = !settings.contains("hbase.client.sasl.provider.class")
    if (!kerberos || clientLogsIn || !builtInSelector) None
    else {
      val hasToken =
        user.getCredentials.getAllTokens.asScala.exists(_.getKind == AuthenticationTokenIdentifier.AUTH_TOKEN_TYPE)
      val hasLogin = user.hasKerberosCredentials || Option(user.getRealUser).exists(_.hasKerberosCredentials)
      if (hasToken || hasLogin) None
      else Some(
        s"user ${user.getShortUserName} has neither a Kerberos login nor an HBase delegation token in this JVM " +
          s"(${if (UserGroupInformation.isSecurityEnabled) "Hadoop security is on" else "Hadoop security is off here"})"
      )
    }
  }
}
