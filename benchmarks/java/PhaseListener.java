// Copyright 2026 The spark-hbase-sql developers
// SPDX-License-Identifier: Apache-2.0

import java.io.FileWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.Map;
import org.apache.spark.sql.catalyst.QueryPlanningTracker;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Spark's phases of every statement a Spark application runs, for the statement benchmark's JDBC
 * path, where the statements run inside our Thrift server and not in the benchmark's own JVM. The
 * benchmark compiles this into a jar of its own and starts the Thrift server with it on the
 * driver's class path and {@code spark.sql.queryExecutionListeners=PhaseListener}; each successful
 * action appends one JSON line to the file named by the environment variable {@code
 * PHASE_LISTENER_FILE}: {"action", "parsing", "analysis", "optimization", "planning"
 * (milliseconds), "actionMs" (the action's own time), "plan" (the analyzed plan's root, e.g.
 * Project)}.
 */
public class PhaseListener implements QueryExecutionListener {
  private static final String FILE = System.getenv("PHASE_LISTENER_FILE");
  private static final String[] PHASES = {
    QueryPlanningTracker.PARSING(),
    QueryPlanningTracker.ANALYSIS(),
    QueryPlanningTracker.OPTIMIZATION(),
    QueryPlanningTracker.PLANNING()
  };

  @Override
  public void onSuccess(String action, QueryExecution qe, long durationNs) {
    if (FILE == null) {
      return;
    }
    Map<String, ?> phases = scala.jdk.javaapi.CollectionConverters.asJava(qe.tracker().phases());
    StringBuilder line = new StringBuilder("{\"action\": \"").append(action).append('"');
    for (String phase : PHASES) {
      Object summary = phases.get(phase);
      long ms =
          summary == null
              ? 0
              : ((org.apache.spark.sql.catalyst.QueryPlanningTracker.PhaseSummary) summary)
                  .durationMs();
      line.append(", \"").append(phase).append("\": ").append(ms);
    }
    line.append(", \"actionMs\": ").append(durationNs / 1e6);
    line.append(", \"plan\": \"").append(qe.analyzed().nodeName()).append("\"}");
    synchronized (PhaseListener.class) {
      try (PrintWriter out = new PrintWriter(new FileWriter(FILE, true))) {
        out.println(line);
      } catch (IOException e) {
        throw new RuntimeException(e);
      }
    }
  }

  @Override
  public void onFailure(String action, QueryExecution qe, Exception exception) {}
}
