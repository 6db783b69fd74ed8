# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Global-index benchmark: our global secondary indexes against Apache Phoenix's, on one HBase, the same rows.

Run through `benchmarks/run global_index [--scale 1] [--repeat 5]`, which installs what this needs. It installs
Phoenix (harness/phoenix), starts an embedded HBase of its own with Phoenix's jars after HBase's own and our
server jar, generates TPC-H orders (and lineitem for the build) as CSV with tpchgen-cli, and loads the orders into
three tables pre-split alike: ours with one cell per column and ours in LAYOUT PACKED (LOAD DATA), and Phoenix's
mutable table (CsvBulkLoadTool), whose global indexes are Phoenix's consistent kind (written unverified, verified
after the data, repaired when read). Each gets two global indexes of o_custkey: uncovered, and covering
o_orderstatus, o_totalprice and o_orderdate (Phoenix's CREATE UNCOVERED INDEX and CREATE INDEX ... INCLUDE).
Everything is flushed and major-compacted.

The queries (queries.py) are hinted to the index each measures, on both engines: a lookup of one o_custkey, a
0.1 % range and an IN list of 100 values, each through either index, a covered aggregate, the lookup with the
index hinted away, and our lookup by primary key, the yardstick of the issue's 1.5x target. Each runs warmed, then
in rounds of one timed run on each table, a different one first each round; the answers are checked to be the same;
then a few runs of each alone between readings of each table's region read counters and the region server's CPU,
which say how many rows the index and the data table read a run and which data regions were read.

Then what indexes cost writers (writes.py): INSERT and LOAD DATA against Phoenix's UPSERT with 0, 1 and 3 indexes;
and the build of an index on lineitem (6 M rows at scale 1), ours against Phoenix's synchronous CREATE INDEX.
Writes benchmarks/results/global_index-sf<scale>.json, .md and .png.
"""

from . import report

CHARTS = {"global_index": report.chart}
