# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""JVM flags for the JVMs of a test run.

A run starts well over a hundred JVMs (HBase, Spark servers and applications, CLIs, a KDC, YARN)
on a few cores, most of them for seconds. C1 alone and the serial collector start one with about
half the CPU of the defaults, most of which goes into compiling code that runs once. The tests'
conftest.py hands them to every JVM that Spark's launcher (SPARK_SUBMIT_OPTS) or the embedded
HBase (HBASE_OPTS) starts; benchmarks keep the defaults."""

SHORT_LIVED_JVM_FLAGS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
