# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The options that several `spark-hbase` subcommands share."""

import argparse


def data_dir_option() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="data dir of the local HBase (default: $SPARK_HBASE_LOCAL_DIR, else <repo>/.hbase-local)",
    )
    return p
