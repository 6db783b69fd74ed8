# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""One module (or package) per benchmark, each run by `./benchmarks/run <name>` as `python -m suites.<name>`.
Each imports the harness only, never another benchmark, and lists its chart functions in CHARTS."""
