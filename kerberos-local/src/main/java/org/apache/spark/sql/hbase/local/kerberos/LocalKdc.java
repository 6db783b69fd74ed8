// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local.kerberos;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.hadoop.minikdc.MiniKdc;

/**
 * A Kerberos KDC for tests of a secured HBase: Hadoop's MiniKdc on 127.0.0.1, a port the kernel
 * picks, realm EXAMPLE.COM. It writes into {@code <dir>}:
 *
 * <pre>
 *   krb5.conf               for every JVM of the test (-Djava.security.krb5.conf)
 *   keytabs/&lt;name&gt;.keytab   one per {@code name=principal[,principal...]} argument
 *   kdc.properties          realm, port, krb5.conf (written last: its presence means ready)
 * </pre>
 *
 * <p>It serves until its stdin closes or it is killed, so it dies with the test that started it.
 *
 * <p>Usage: {@code LocalKdc <dir> hbase=hbase/localhost alice=alice ...}
 */
public final class LocalKdc {
  private LocalKdc() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: LocalKdc <dir> <keytab name>=<principal>[,<principal>...] ...");
      System.exit(1);
    }
    File dir = new File(args[0]).getAbsoluteFile();
    Map<String, String[]> keytabs = new LinkedHashMap<>();
    for (int i = 1; i < args.length; i++) {
      String[] nameAndPrincipals = args[i].split("=", 2);
      if (nameAndPrincipals.length != 2 || nameAndPrincipals[1].isEmpty()) {
        System.err.println("not <keytab name>=<principal>[,<principal>...]: " + args[i]);
        System.exit(1);
      }
      keytabs.put(nameAndPrincipals[0], nameAndPrincipals[1].split(","));
    }

    Properties conf = MiniKdc.createConf();
    conf.setProperty(MiniKdc.KDC_BIND_ADDRESS, "127.0.0.1");
    conf.setProperty(MiniKdc.KDC_PORT, "0");
    File work = new File(dir, "kdc");
    work.mkdirs();
    MiniKdc kdc = new MiniKdc(conf, work);
    kdc.start();

    File keytabDir = new File(dir, "keytabs");
    keytabDir.mkdirs();
    for (Map.Entry<String, String[]> keytab : keytabs.entrySet()) {
      kdc.createPrincipal(new File(keytabDir, keytab.getKey() + ".keytab"), keytab.getValue());
    }

    File krb5 = new File(dir, "krb5.conf");
    Files.write(krb5.toPath(), krb5Conf(kdc.getRealm(), kdc.getPort()), StandardCharsets.UTF_8);
    Properties ready = new Properties();
    ready.setProperty("realm", kdc.getRealm());
    ready.setProperty("port", Integer.toString(kdc.getPort()));
    ready.setProperty("krb5.conf", krb5.getPath());
    File props = new File(dir, "kdc.properties");
    File tmp = new File(dir, "kdc.properties.tmp");
    try (var out = Files.newBufferedWriter(tmp.toPath(), StandardCharsets.UTF_8)) {
      ready.store(out, "written by LocalKdc once it serves");
    }
    Files.move(tmp.toPath(), props.toPath(), StandardCopyOption.ATOMIC_MOVE);
    System.out.println("READY");
    System.out.flush();

    while (System.in.read() != -1) {
      // serve until the parent closes our stdin
    }
    kdc.stop();
    System.exit(0);
  }

  /**
   * MiniKdc's own krb5.conf names the KDC "localhost", which may resolve to ::1 first. TCP only:
   * service tickets with a PAC easily exceed one UDP datagram.
   */
  private static List<String> krb5Conf(String realm, int port) {
    List<String> lines = new ArrayList<>();
    lines.add("[libdefaults]");
    lines.add("  default_realm = " + realm);
    lines.add("  udp_preference_limit = 1");
    lines.add("  dns_lookup_kdc = false");
    lines.add("  dns_lookup_realm = false");
    lines.add("  rdns = false");
    lines.add("  ticket_lifetime = 24h");
    lines.add("  forwardable = true");
    lines.add("[realms]");
    lines.add("  " + realm + " = {");
    lines.add("    kdc = 127.0.0.1:" + port);
    lines.add("  }");
    lines.add("[domain_realm]");
    lines.add("  localhost = " + realm);
    lines.add("  127.0.0.1 = " + realm);
    return lines;
  }
}
