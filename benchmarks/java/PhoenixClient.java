// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.Reader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVRecord;
import org.apache.phoenix.monitoring.MetricType;
import org.apache.phoenix.util.PhoenixRuntime;

/**
 * The Phoenix side of the Phoenix benchmark: one thick JDBC connection, driven by the Python script
 * through stdin and stdout, one JSON object a line each way.
 *
 * <p>Usage: java -cp <HBase conf dir>:<HBase's jars>:<Phoenix's jars> PhoenixClient.java JDBC_URL
 *
 * <p>Commands ({"command": ...}): execute {"sql"}: a statement (DDL, UPSERT ... SELECT); answers
 * {"seconds"}. load {"sql", "csv", "types", "batch"}: an UPSERT with one ? per CSV field, run for
 * every line of the file (header skipped), committed every `batch` rows; `types` names each field's
 * JDBC type. Answers {"seconds", "rows"}. query {"sql", "repeat", "out", "warmUp"}: one untimed run
 * (none when warmUp is false), then `repeat` timed runs, each executing the query anew and reading
 * every row. Writes the last run's rows to `out` (a JSON array a line) and answers {"runs", "rows",
 * "columns", "metrics", "plan"}: Phoenix's request metrics of the last run, by table, and its
 * EXPLAIN. Errors answer {"error"}; the client keeps going.
 */
public class PhoenixClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    Properties properties = new Properties();
    // Phoenix counts rows scanned and the like per request only when asked to.
    properties.setProperty("phoenix.query.request.metrics.enabled", "true");
    try (Connection connection = DriverManager.getConnection(args[0], properties)) {
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
          connection.rollback();
        }
        out.println(JSON.writeValueAsString(answer));
      }
    }
  }

  private static Map<String, Object> run(Connection connection, JsonNode command) throws Exception {
    switch (command.get("command").asText()) {
      case "execute":
        return execute(connection, command.get("sql").asText());
      case "load":
        return load(connection, command);
      case "query":
        return query(connection, command);
      default:
        throw new IllegalArgumentException("unknown command " + command);
    }
  }

  private static Map<String, Object> execute(Connection connection, String sql) throws Exception {
    long start = System.nanoTime();
    connection.setAutoCommit(true);
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } finally {
      connection.setAutoCommit(false);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("seconds", (System.nanoTime() - start) / 1e9);
    return answer;
  }

  private static Map<String, Object> load(Connection connection, JsonNode command)
      throws Exception {
    List<Integer> types = new ArrayList<>();
    command.get("types").forEach(t -> types.add(jdbcType(t.asText())));
    int batch = command.get("batch").asInt();
    long rows = 0;
    long start = System.nanoTime();
    connection.setAutoCommit(false);
    try (Reader file =
            Files.newBufferedReader(
                Paths.get(command.get("csv").asText()), StandardCharsets.UTF_8);
        PreparedStatement upsert = connection.prepareStatement(command.get("sql").asText())) {
      boolean header = true;
      for (CSVRecord record : CSVFormat.DEFAULT.parse(file)) {
        if (header) {
          header = false;
          continue;
        }
        for (int i = 0; i < types.size(); i++) {
          upsert.setObject(i + 1, value(record.get(i), types.get(i)), types.get(i));
        }
        upsert.executeUpdate();
        if (++rows % batch == 0) {
          connection.commit();
        }
      }
      connection.commit();
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("seconds", (System.nanoTime() - start) / 1e9);
    answer.put("rows", rows);
    return answer;
  }

  private static int jdbcType(String name) {
    switch (name) {
      case "BIGINT":
        return Types.BIGINT;
      case "INTEGER":
        return Types.INTEGER;
      case "DECIMAL":
        return Types.DECIMAL;
      case "DATE":
        return Types.DATE;
      case "VARCHAR":
        return Types.VARCHAR;
      default:
        throw new IllegalArgumentException("no JDBC type for " + name);
    }
  }

  private static Object value(String field, int type) {
    switch (type) {
      case Types.BIGINT:
        return Long.parseLong(field);
      case Types.INTEGER:
        return Integer.parseInt(field);
      case Types.DECIMAL:
        return new BigDecimal(field);
      // Midnight UTC, the JVM's zone being UTC: Phoenix keeps dates as UTC milliseconds.
      case Types.DATE:
        return java.sql.Date.valueOf(LocalDate.parse(field));
      default:
        return field;
    }
  }

  private static Map<String, Object> query(Connection connection, JsonNode command)
      throws Exception {
    String sql = command.get("sql").asText();
    int repeat = command.get("repeat").asInt();
    boolean warmUp = !command.has("warmUp") || command.get("warmUp").asBoolean();
    List<Double> runs = new ArrayList<>();
    List<List<Object>> rows = null;
    List<String> columns = new ArrayList<>();
    Map<String, Map<String, Long>> metrics = null;
    for (int run = warmUp ? 0 : 1; run <= repeat; run++) { // run 0 warms up, untimed
      long start = System.nanoTime();
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery(sql)) {
        rows = readAll(result);
        columns.clear();
        for (int i = 1; i <= result.getMetaData().getColumnCount(); i++) {
          columns.add(result.getMetaData().getColumnLabel(i));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (run > 0) {
          runs.add(seconds);
        }
        metrics = requestMetrics(result);
      }
    }
    try (PrintWriter out =
        new PrintWriter(Files.newBufferedWriter(Paths.get(command.get("out").asText())))) {
      for (List<Object> row : rows) {
        out.println(JSON.writeValueAsString(row));
      }
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("runs", runs);
    answer.put("rows", rows.size());
    answer.put("columns", columns);
    answer.put("metrics", metrics);
    answer.put("plan", explain(connection, sql));
    return answer;
  }

  private static List<List<Object>> readAll(ResultSet result) throws Exception {
    ResultSetMetaData meta = result.getMetaData();
    List<List<Object>> rows = new ArrayList<>();
    while (result.next()) {
      List<Object> row = new ArrayList<>(meta.getColumnCount());
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        row.add(comparable(result.getObject(i)));
      }
      rows.add(row);
    }
    return rows;
  }

  /**
   * The value as the Python side compares it: dates as ISO days in UTC (decimals stay exact JSON
   * numbers).
   */
  private static Object comparable(Object value) {
    if (value instanceof java.util.Date) {
      return Instant.ofEpochMilli(((java.util.Date) value).getTime())
          .atZone(ZoneOffset.UTC)
          .toLocalDate()
          .toString();
    }
    return value;
  }

  /** Phoenix's counters for the request, by table: rows scanned, bytes, RPCs and the like. */
  private static Map<String, Map<String, Long>> requestMetrics(ResultSet result) throws Exception {
    Map<String, Map<String, Long>> byTable = new LinkedHashMap<>();
    for (Map.Entry<String, Map<MetricType, Long>> table :
        PhoenixRuntime.getRequestReadMetricInfo(result).entrySet()) {
      Map<String, Long> counts = new LinkedHashMap<>();
      table.getValue().forEach((metric, count) -> counts.put(metric.name(), count));
      byTable.put(table.getKey(), counts);
    }
    return byTable;
  }

  private static List<String> explain(Connection connection, String sql) throws Exception {
    List<String> plan = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("EXPLAIN " + sql)) {
      while (result.next()) {
        plan.add(result.getString(1));
      }
    }
    return plan;
  }
}
