// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

package org.apache.spark.sql.hbase.local;

import java.util.Arrays;
import org.apache.hadoop.hbase.NamespaceDescriptor;
import org.apache.hadoop.hbase.NamespaceNotFoundException;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.security.access.AccessControlClient;
import org.apache.hadoop.hbase.security.access.Permission;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * What an HBase administrator does for a user of a secured HBase, as HBase's superuser (see {@link
 * SuperuserLogin}):
 *
 * <pre>
 *   AccessTool grant &lt;user&gt; @&lt;namespace&gt; &lt;actions&gt;   creates the namespace if missing
 *   AccessTool grant &lt;user&gt; &lt;table&gt;[/&lt;family&gt;[/&lt;qualifier&gt;]] &lt;actions&gt;
 *   AccessTool revoke &lt;user&gt; @&lt;namespace&gt;|&lt;table&gt;[/&lt;family&gt;[/&lt;qualifier&gt;]] &lt;actions&gt;
 * </pre>
 *
 * <p>{@code actions} are letters of RWXCA (read, write, exec, create, admin), as in HBase's shell.
 * One run makes several changes, in order, given one after another. Prints OK for each.
 */
public final class AccessTool {
  private AccessTool() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0 || args.length % 4 != 0) usage();
    for (int i = 0; i < args.length; i += 4)
      if (!(args[i].equals("grant") || args[i].equals("revoke"))) usage();
    // One superuser connection for every change: a JVM and a login for each would cost seconds.
    try (Connection c = ConnectionFactory.createConnection(SuperuserLogin.clientConf())) {
      for (int i = 0; i < args.length; i += 4) change(c, Arrays.copyOfRange(args, i, i + 4));
    }
    System.exit(0);
  }

  private static void usage() {
    System.err.println(
        "usage: AccessTool (grant|revoke <user> @<namespace>|<table>[/<family>[/<qualifier>]]"
            + " <RWXCA letters>)...");
    System.exit(1);
  }

  private static void change(Connection c, String[] args) throws Throwable {
    boolean grant = args[0].equals("grant");
    String user = args[1];
    String scope = args[2];
    // A table's scope may narrow to a family, and to a qualifier in it (no table name has a '/').
    String[] cell = scope.split("/", 3);
    TableName table = scope.startsWith("@") ? null : TableName.valueOf(cell[0]);
    byte[] family = cell.length > 1 ? Bytes.toBytes(cell[1]) : null;
    byte[] qualifier = cell.length > 2 ? Bytes.toBytes(cell[2]) : null;
    Permission.Action[] actions =
        args[3].chars().mapToObj(AccessTool::action).toArray(Permission.Action[]::new);
    if (!grant) {
      if (scope.startsWith("@")) {
        AccessControlClient.revoke(c, scope.substring(1), user, actions);
      } else {
        AccessControlClient.revoke(c, table, user, family, qualifier, actions);
      }
    } else if (scope.startsWith("@")) {
      String namespace = scope.substring(1);
      try (Admin admin = c.getAdmin()) {
        try {
          admin.getNamespaceDescriptor(namespace);
        } catch (NamespaceNotFoundException e) {
          admin.createNamespace(NamespaceDescriptor.create(namespace).build());
        }
      }
      AccessControlClient.grant(c, namespace, user, actions);
    } else {
      AccessControlClient.grant(c, table, user, family, qualifier, actions);
    }
    System.out.println("OK " + args[0] + " " + user + " " + scope + " " + Arrays.toString(actions));
  }

  private static Permission.Action action(int letter) {
    for (Permission.Action action : Permission.Action.values()) {
      if (action.code() == letter) {
        return action;
      }
    }
    throw new IllegalArgumentException("not an HBase action letter (RWXCA): " + (char) letter);
  }
}
