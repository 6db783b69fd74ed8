// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;

/**
 * A JDBC client's metadata calls, as a BI tool makes them, through Hive's JDBC driver: run as
 * `java -cp <pyspark's jars> JdbcMetadata.java <url> <user> <schema pattern> <table pattern>`
 * (Java runs a single source file). Prints one line per row, "schemas", "tables" or "columns"
 * and the row's columns by name, tab-separated as name=value.
 */
public class JdbcMetadata {
  public static void main(String[] args) throws Exception {
    try (Connection connection = DriverManager.getConnection(args[0], args[1], "")) {
      DatabaseMetaData meta = connection.getMetaData();
      print("schemas", meta.getSchemas(null, args[2]));
      print("tables", meta.getTables(null, args[2], args[3], null));
      print("columns", meta.getColumns(null, args[2], args[3], "%"));
    }
  }

  private static void print(String call, ResultSet rows) throws Exception {
    ResultSetMetaData columns = rows.getMetaData();
    while (rows.next()) {
      StringBuilder line = new StringBuilder(call);
      for (int i = 1; i <= columns.getColumnCount(); i++) {
        line.append('\t')
            .append(columns.getColumnLabel(i).toUpperCase())
            .append('=')
            .append(rows.getString(i));
      }
      System.out.println(line);
    }
    rows.close();
  }
}
