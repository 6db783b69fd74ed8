# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""What one short statement costs: Spark's phases, and the RPCs it makes to HBase for the table's definition, its
range indexes and its regions, from PySpark and from a JVM JDBC client through our Thrift server.

Run through `./benchmarks/run statement [--repeat 40] [--label now] [--jar PLUGIN_JAR] [--skip small]`. On an
HBase of its own, started empty, one Spark application (local[2]) creates a 4-region table of 20,000 rows with a
built range index, then runs each statement below once untimed and --repeat times timed, each planned anew
(spark.sql() included in the time):
- a point lookup on the key;
- an IN list of 10 keys;
- a count over a key range;
- a count filtered by the range-indexed column.
Per statement it reports the median milliseconds of each of Spark's phases (parsing, analysis, optimization,
planning; execution is the rest, returning the rows to Python included) and, per run, the rows the region server
read in the catalog table, the range index table and hbase:meta (its per-region readRequestCount over JMX,
TableReads.java; a Get reads one row). Every answer is checked.

Then the lookups of the Phoenix benchmark, on a table of lineitem's 16 columns and key (l_orderkey, l_linenumber),
16 regions, 600,000 rows made by Spark SQL (150,000 orders of 1 to 7 lines, order keys 4 apart, as TPC-H's are
sparse; no tpchgen needed): the point lookup, the 0.1 % range on the leading key and the IN list of 100 order keys,
with Spark's floor `SELECT 1` beside them, each timed two ways, alternating statement by statement:
- from PySpark, as above (spark.sql(...).collect(), rows to Python);
- from a JVM JDBC client (JdbcClient.java, Hive's JDBC driver as pyspark ships it for beeline) through our Thrift
  server (`spark-hbase thriftserver`, on the same HBase), every row read through the ResultSet. Spark's phases are
  the server's own, written by a QueryExecutionListener (PhaseListener.java, compiled into a jar of its own and
  put on the server's class path); what is left of the client's time is the execution, the Thrift round trips
  and the rows' conversion on both sides;
- the same through a second Thrift server on the same HBase, with a JDBC client of its own, that keeps Spark's
  own tables in a Hive metastore (Derby; `--catalog-implementation hive`), as the launcher started it before it
  kept them in memory where no metastore is configured. A one-part table name is looked up there first.
The answers of all paths are checked against each other. After the timed runs, the point lookup runs again
through each server after 11 s idle, when Hive's statement threads have ended.

--jar runs another build of the plugin (the session and the Thrift server both use it), for a before and after
in one sitting. The results of each --label are kept beside the earlier labels' in results/statement.json, so
that one file shows a change's before and after; a label run again replaces its own.
"""

from . import report

CHARTS = {"statement": report.chart}
