# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The global-index benchmark's engines, indexes, settings and the issue's targets."""

OURS, OURS_PACKED, PHOENIX = "ours", "ours packed", "Phoenix"
ENGINES = (PHOENIX, OURS, OURS_PACKED)  # Phoenix's mutable table: its indexes are the consistent kind
CHART_LABELS = {
    PHOENIX: "Phoenix 5.2, mutable table",
    OURS: "ours, one cell per column",
    OURS_PACKED: "ours, LAYOUT PACKED",
}
UNCOVERED, COVERED = "uncovered", "covered"
INDEX_COLUMN = "o_custkey"
COVERED_COLUMNS = ("o_orderstatus", "o_totalprice", "o_orderdate")  # what the covered index includes
# The write cost's tables: no index, an index on o_custkey, and those on o_custkey, o_orderdate and o_clerk.
WRITE_INDEX_COLUMNS = ("o_custkey", "o_orderdate", "o_clerk")
INDEX_COUNTS = (0, 1, 3)
BUILD_COLUMN = "l_partkey"  # the build: an index of lineitem (6 M rows at scale 1) on l_partkey
# Phoenix's defaults spelled out for both engines' families.
FAMILY = {"DATA_BLOCK_ENCODING": "FAST_DIFF", "COMPRESSION": "NONE", "BLOOMFILTER": "ROW"}
HBASE_HEAP = "3g"  # Phoenix's synchronous index build runs in the region server
# The files a compaction replaced are archived sooner than HBase's 2 minutes, so that sizes are those read.
MEASURE_SITE = {"hbase.hfile.compaction.discharger.interval": "10000"}
UPSERT_BATCH = 1000  # rows per commit, as Phoenix's documentation advises for bulk UPSERTs
BLOCK_BYTES = 64 * 1024  # HBase's default block size: what "one block" of index rows is
# Untimed runs of each query on each engine first: our statement's path (Spark's analyzer, optimizer and planner)
# takes the JIT compiler longer to warm up than Phoenix's client, and 5 left ours well short of steady state.
LOOKUP_WARM_UPS = 20
MEASURED_RUNS = 5  # runs alone per query and engine, between readings of the region counters and CPU
# Kinds of query.
KEY_LOOKUP = "key lookup"  # by the primary key: the yardstick of the index lookup
LOOKUP = "lookup"  # one indexed value
RANGE = "range"  # 0.1 % of the indexed values
IN_LIST = "IN list"  # 100 indexed values
AGGREGATE = "aggregate"  # a covered aggregate over 1 % of the indexed values
NO_INDEX = "no index"  # the lookup again with the index hinted away: what the index saves
# The targets, each a ratio of this run.
INDEX_OVER_KEY_LOOKUP = 1.5  # a lookup by indexed value at most 1.5x ours by primary key
FASTER_THAN_PHOENIX_KINDS = (RANGE, IN_LIST, AGGREGATE)
WRITE_RATE_KEPT = 0.5  # INSERT with one index at least half the rate of INSERT with none
BUILD_SPEEDUP = 3.0  # our build at least 3x faster than Phoenix's synchronous CREATE INDEX
