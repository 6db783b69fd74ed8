# Licensed to the Apache Software Foundation (ASF) under one or more
# contributor license agreements.  See the NOTICE file distributed with
# this work for additional information regarding copyright ownership.
# The ASF licenses this file to You under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with
# the License.  You may obtain a copy of the License at
#
#    http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

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
