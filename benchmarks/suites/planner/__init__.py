# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Planner benchmark: TPC-H lineitem and orders in HBase, each query with pushdown on and off.

`./benchmarks/run planner [--scale 0.1] [--regions 16] [--repeat 5] [--repeat-off 3]` generates the data with
tpchgen-cli, starts an embedded HBase under benchmarks/work (unless HBASE_CONF_DIR names one), loads the tables once
(INSERT ... SELECT, kept for later runs), times every query with spark.sql.hbase.pushdown on and off in the same
session, and writes benchmarks/results/planner-sf<scale>.json, .md and .png. It also plans long ORs and IN lists of
1,000 and 10,000 terms (long_predicates.py; --long-predicates-only for that part alone), kept under --label in
benchmarks/results/long_predicates.json, .md and .png. `./benchmarks/run chart planner` draws the .png again from
the .json without running the queries.
"""

from . import long_predicates, report

CHARTS = {"planner": report.chart, "long_predicates": long_predicates.chart}
