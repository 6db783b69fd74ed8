// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.AuthUtil;
import org.apache.hadoop.hbase.HBaseConfiguration;

/**
 * The client configuration of the embedded HBase's own tools (the probe, {@link AccessTool}). With
 * Kerberos, the launcher passes HBase's service login as system properties, and the HBase client
 * logs in with it when it connects, as HBase's superuser. Not in hbase-site.xml: every client reads
 * that file, and they must log in as themselves.
 */
final class SuperuserLogin {
  static final String PRINCIPAL = "spark.hbase.local.login.principal";
  static final String KEYTAB = "spark.hbase.local.login.keytab";

  private SuperuserLogin() {}

  static Configuration clientConf() {
    Configuration conf = HBaseConfiguration.create();
    String principal = System.getProperty(PRINCIPAL);
    String keytab = System.getProperty(KEYTAB);
    if (principal != null && keytab != null) {
      conf.set(AuthUtil.HBASE_CLIENT_KERBEROS_PRINCIPAL, principal);
      conf.set(AuthUtil.HBASE_CLIENT_KEYTAB_FILE, keytab);
    }
    return conf;
  }

  static boolean authorizationOn(Configuration conf) {
    return conf.getBoolean("hbase.security.authorization", false);
  }
}
