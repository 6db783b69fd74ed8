# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The benchmark harness: what every benchmark under benchmarks/suites shares.

- platform: the one module that imports pyspark_hbase (sessions, paths, the embedded HBase, the Thrift server)
- common: where things are (benchmarks/work, benchmarks/results), logging, the JDK's tools, the machine
- sessions: the embedded HBase and a Spark session on it, HBase's Admin, flush and compaction
- data: TPC-H data from tpchgen-cli (Parquet and CSV), our tables of it, loads, and tables made and dropped
- timing: timed runs (every run and their median), Spark's planning phases
- server_sampling: a JVM's CPU seconds, heap (peak and after a full GC), flight recordings, region reads
- java: the one launcher of the Java helper programs in benchmarks/java
- thrift_jdbc: our Thrift server with Spark's phases written to a file, and a JVM JDBC client of it
- results: writing results/<name>.json, .md and .png, and runs kept under a label
- charts: drawing primitives; `./benchmarks/run chart` (redraw) finds each benchmark's chart functions

A benchmark imports the harness only, never another benchmark.
"""
