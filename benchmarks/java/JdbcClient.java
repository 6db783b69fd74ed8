// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A JVM JDBC client of our Thrift server, for the statement benchmark: one connection through
 * Hive's JDBC driver (hive-jdbc, the one pyspark ships for beeline), driven by the Python script
 * through stdin and stdout, one JSON object a line each way, as PhoenixClient.java is.
 *
 * <p>Usage: java -cp <pyspark's jars> JdbcClient.java JDBC_URL
 *
 * <p>Commands ({"command": ...}): execute {"sql"}: a statement, its rows not read; answers
 * {"seconds"}. query {"sql", "repeat", "warmUp"}: one untimed run (none when warmUp is false), then
 * `repeat` timed runs, each executing the statement anew and reading every row through the
 * ResultSet, the statement closed; answers {"runs" (seconds), "rows", "result"}: the last run's
 * rows, each a list of values (numbers, strings; decimals and dates as strings). Errors answer
 * {"error"}; the client keeps going.
 */
public class JdbcClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    try (Connection connection = DriverManager.getConnection(args[0], "", "")) {
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
      out.println("{\"ready\": true}");
      for (String line; (line = in.readLine()) != null; ) {
        JsonNode command = JSON.readTree(line);
        Map<String, Object> answer;
        try {
          answer = run(connection, command);
        } catch (Exception e) {
          answer = new LinkedHashMap<>();
          answer.put("error", e.toString());
        }
        out.println(JSON.writeValueAsString(answer));
      }
    }
  }

  private static Map<String, Object> run(Connection connection, JsonNode command) throws Exception {
    String sql = command.get("sql").asText();
    switch (command.get("command").asText()) {
      case "execute":
        {
          long start = System.nanoTime();
          try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
          }
          Map<String, Object> answer = new LinkedHashMap<>();
          answer.put("seconds", (System.nanoTime() - start) / 1e9);
          return answer;
        }
      case "query":
        return query(
            connection, sql, command.get("repeat").asInt(), command.get("warmUp").asBoolean());
      default:
        throw new IllegalArgumentException("unknown command " + command);
    }
  }

  private static Map<String, Object> query(
      Connection connection, String sql, int repeat, boolean warmUp) throws Exception {
    List<Double> runs = new ArrayList<>();
    List<List<Object>> rows = null;
    for (int run = warmUp ? 0 : 1; run <= repeat; run++) { // run 0 warms up, untimed
      long start = System.nanoTime();
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery(sql)) {
        rows = readAll(result);
      }
      if (run > 0) {
        runs.add((System.nanoTime() - start) / 1e9);
      }
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("runs", runs);
    answer.put("rows", rows.size());
    answer.put("result", rows);
    return answer;
  }

  private static List<List<Object>> readAll(ResultSet result) throws Exception {
    ResultSetMetaData meta = result.getMetaData();
    int columns = meta.getColumnCount();
    List<List<Object>> rows = new ArrayList<>();
    while (result.next()) {
      List<Object> row = new ArrayList<>(columns);
      for (int i = 1; i <= columns; i++) {
        Object value = result.getObject(i);
        row.add(
            value instanceof BigDecimal || value instanceof java.util.Date
                ? value.toString()
                : value);
      }
      rows.add(row);
    }
    return rows;
  }
}
