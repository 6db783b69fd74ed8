# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`python -m pyspark_hbase ...` is the same as the `spark-hbase` command."""

from pyspark_hbase.cli import main

raise SystemExit(main())
