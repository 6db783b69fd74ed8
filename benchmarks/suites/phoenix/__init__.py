# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Phoenix benchmark: the same TPC-H rows in Apache Phoenix and in our tables, on one HBase, the same queries.

Run through `benchmarks/run phoenix [--scale 0.1] [--repeat 5]`, which installs what this needs. It installs
Phoenix (harness/phoenix) under benchmarks/work, starts an embedded HBase of its own with Phoenix's jars
after HBase's own and our server jar, generates TPC-H lineitem, orders and customer as CSV with tpchgen-cli, and
loads the same rows into four tables of each: ours in today's format (one cell per column) and ours in LAYOUT PACKED
(one cell per row and family), both with LOAD DATA from the CSV files, timed; Phoenix's default table (column
encoding, one cell per column), loaded with UPSERT batches through Phoenix's thick JDBC client, timed; and
Phoenix's packed table (IMMUTABLE_ROWS=true, IMMUTABLE_STORAGE_SCHEME=SINGLE_CELL_ARRAY_WITH_OFFSETS,
COLUMN_ENCODED_BYTES=2), filled with UPSERT ... SELECT from its default table, timed. Phoenix's CsvBulkLoadTool
is timed too, into a table that is checked and dropped. All are pre-split at the same order keys (customer at
the same customer keys), with the same row keys (both engines encode BIGINT and INT keys as big-endian with the sign bit flipped) and family
settings, then flushed and major-compacted; each table's store files are measured on disk.

Each query then runs on the four: through Phoenix's JDBC client (PhoenixClient.java) and through Spark with
our plugin, one untimed run on each, then --repeat rounds of one timed run on each, a different table first
each round; the four answers are checked to be the same. Rows
scanned are counted three ways: Phoenix's request metrics, our scan metrics, and, for both engines alike, the
regions' own read counters over one more run of each, during which every process's CPU seconds are read too
(cost_profile.py), the region server's among them. Spark's phases per statement are measured beside Spark's
floors, and what the region server's CPU ran during the full-scan aggregates. The issue's targets are ratios
of this one run: ours packed against Phoenix's two tables and against ours in today's format, the region
server's CPU per row read, LOAD DATA into each layout, and the keyed queries. Writes
benchmarks/results/phoenix-sf<scale>.json, .md and .png.

The joins (issue 36): the keyed join over 10 % of the orders, a join of a few hundred orders picked by
o_totalprice with their lines (Spark broadcasts them and hands their keys to the lineitem scan; Phoenix's
hash join skip-scans lineitem by them), TPC-H Q3 and Q12. For each, the rows each table's regions read, Spark's
CPU seconds and the joins of the plan that ran; each runs once more on ours in today's format with merging by key
and pushed keys off (JOINS_OFF), so that the report shows what the two save; issue 36's targets are ratios of
this run too. `--no-joins` leaves out all but the keyed join: at scale 1 the others make the run last over an hour.
"""

from . import report

CHARTS = {"phoenix": report.chart}
