# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Soak: mixed reads, writes, LOAD DATA, region splits and region server restarts against an HBase of three
region servers, for --minutes, with nothing lost.

Run through `./benchmarks/run soak [--minutes 30] [--chaos-every 3]`. One Spark application (local[2]) on an
embedded HBase of its own, started empty, with three region servers, works on one table:
- 2 writers INSERT batches of new rows; a batch is acknowledged when its statement returns;
- 1 loader writes a CSV file of new rows and runs LOAD DATA on it;
- 2 readers read 50 acknowledged keys at a time (their values must be exact) and now and then count the whole
  table (never fewer rows than were acknowledged when the count began) and sum a column by group;
- every --chaos-every minutes, by turns, the region holding the most rows is split, or region server 2 or 3 is
  killed (SIGKILL) and started again.
A statement may fail while HBase heals; its error is counted by kind. A wrong answer never is acceptable.
At the end every acknowledged row must be in the table with its values, and every row in it must be one
some writer attempted.

Each row's key is a bijection of its number n (odd multiplier modulo 2^62), so writes spread over every
region, and its values follow from n, so that any read can be checked.

The driver, the master's JVM (which holds region server 1) and region servers 2 and 3 are counted at the
start, every few minutes and at the end, over JMX (JvmCounts.java): threads, open files, heap used after a
full GC, HBase's open scanners, and the driver's TCP connections to HBase. Flat is the bar.

Writes benchmarks/results/soak-<minutes>m.json, .md and .png (throughput over time, and the counts).
"""

from . import report

CHARTS = {"soak": report.chart}
