// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.PrivilegedExceptionAction;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * One JDBC session of a user who authenticates to the Thrift server with Kerberos, as a JVM tool
 * (beeline, a BI tool) does: logged in from the user's keytab, through Hive's JDBC driver with the
 * server's principal in the URL. Run as `java -Djava.security.krb5.conf=<krb5.conf> -cp <pyspark's
 * jars> KerberosJdbc.java <principal> <keytab> <url>` (Java runs a single source file). Without a
 * keytab ("-") it connects with no Kerberos login. It prints "connected" or "refused <message>";
 * then runs each line of its input as a statement and prints one line for it, "rows <JSON array of
 * rows>" or "error <message>". It closes the session at the end of its input.
 */
public class KerberosJdbc {
  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    conf.set("hadoop.security.authentication", "kerberos");
    UserGroupInformation.setConfiguration(conf);
    ObjectMapper json = new ObjectMapper();
    Connection connection;
    try {
      PrivilegedExceptionAction<Connection> connect = () -> DriverManager.getConnection(args[2]);
      connection =
          args[1].equals("-")
              ? connect.run()
              : UserGroupInformation.loginUserFromKeytabAndReturnUGI(args[0], args[1])
                  .doAs(connect);
    } catch (Exception e) {
      System.out.println("refused " + json.writeValueAsString(messages(e)));
      return;
    }
    System.out.println("connected");
    try (connection) {
      BufferedReader input =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String sql = input.readLine(); sql != null; sql = input.readLine()) {
        try (Statement statement = connection.createStatement()) {
          List<List<Object>> rows = new ArrayList<>();
          if (statement.execute(sql)) {
            try (ResultSet result = statement.getResultSet()) {
              int columns = result.getMetaData().getColumnCount();
              while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int i = 1; i <= columns; i++) row.add(result.getObject(i));
                rows.add(row);
              }
            }
          }
          System.out.println("rows " + json.writeValueAsString(rows));
        } catch (SQLException e) {
          System.out.println("error " + json.writeValueAsString(messages(e)));
        }
      }
    }
  }

  /** The messages of an error and its causes, in one string. */
  private static String messages(Throwable e) {
    StringBuilder all = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) all.append(t).append(" | ");
    return all.toString();
  }
}
