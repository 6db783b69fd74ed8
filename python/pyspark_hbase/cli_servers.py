# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`spark-hbase thriftserver` and `spark-hbase connect`: Spark applications serving clients on 127.0.0.1."""

import argparse
import sys
from typing import Callable

from pyspark_hbase.cli_options import data_dir_option
from pyspark_hbase.connect import ConnectServer
from pyspark_hbase.spark_catalog import CATALOG_IMPLEMENTATIONS
from pyspark_hbase.spark_server import IDENTITIES, SparkServer
from pyspark_hbase.thriftserver import ThriftServer


def _server(make: Callable[[argparse.Namespace], "SparkServer"], args: argparse.Namespace) -> int:
    server = make(args)
    if args.action == "start":
        print(server.start(timeout=args.timeout, port=args.port))
        print(f"  log: {server.log_file}", file=sys.stderr)
        if server.forgets_tables():
            print("  Spark's own tables and views made through it: in memory, until it stops", file=sys.stderr)
        return 0
    if args.action == "stop":
        print(f"{server.name} stopped" if server.stop() else f"{server.name} was not running")
        return 0
    if server.is_running():
        print(server.address)
        return 0
    print("not running", file=sys.stderr)
    return 1


def _add_server_parser(
    subparsers: "argparse._SubParsersAction",
    command: str,
    server_class: Callable[..., SparkServer],
    help_text: str,
    description: str,
    url_text: str,
    per_user: str,
) -> None:
    """`spark-hbase <command> start|stop|status` for `server_class`; `per_user` says what --identity per-user means."""
    server = subparsers.add_parser(command, help=help_text, description=description)
    actions = server.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    common = data_dir_option()
    start = actions.add_parser("start", parents=[common], help=f"start and print the {url_text}")
    start.add_argument(
        "--timeout",
        type=float,
        default=SparkServer.default_start_timeout,
        metavar="SECONDS",
        help=f"give up (and stop it) after this long (default {SparkServer.default_start_timeout:g})",
    )
    start.add_argument(
        "--port",
        type=int,
        metavar="PORT",
        help="listen on this port of 127.0.0.1 (default: the port of the last start with this data dir, "
        "if it is free, else a free one)",
    )
    start.add_argument(
        "--identity",
        choices=IDENTITIES,
        default="shared",
        help=f"per-user: {per_user}, so that HBase's grants govern each; shared (default): every user reaches "
        "HBase as the server. See 'Identities' in docs/deployment.md",
    )
    start.add_argument(
        "--catalog-implementation",
        choices=CATALOG_IMPLEMENTATIONS,
        help="where Spark's own tables and views made through the server live: in-memory (until it stops; "
        "the default unless a hive-site.xml is found) or hive (a Hive metastore, Derby under the data dir if "
        "none is configured). HBase tables are in HBase either way",
    )
    for name, text in (("stop", "stop the server"), ("status", f"print the {url_text} and exit 0 while up")):
        actions.add_parser(name, parents=[common], help=text)

    def make(args: argparse.Namespace) -> SparkServer:
        # stop and status take neither option: the defaults name the same server.
        return server_class(
            args.data_dir,
            identity=getattr(args, "identity", "shared"),
            catalog_implementation=getattr(args, "catalog_implementation", None),
        )

    server.set_defaults(func=lambda args: _server(make, args))


def add_thriftserver_parser(subparsers: "argparse._SubParsersAction") -> None:
    _add_server_parser(
        subparsers,
        "thriftserver",
        ThriftServer,
        "run Spark's Thrift JDBC server with HBase SQL on 127.0.0.1",
        "Start, stop or check Spark's Thrift JDBC server (HiveThriftServer2) with the plugin, talking to "
        "the local HBase (or HBASE_CONF_DIR when set). `start` waits until it accepts connections and "
        "prints the JDBC URL for beeline.",
        "JDBC URL",
        "each JDBC user's statements reach HBase as that user (Hive's doAs)",
    )


def add_connect_parser(subparsers: "argparse._SubParsersAction") -> None:
    _add_server_parser(
        subparsers,
        "connect",
        ConnectServer,
        "run Spark's Connect server with HBase SQL on 127.0.0.1",
        "Start, stop or check Spark's Connect server with the plugin, talking to the local HBase (or "
        "HBASE_CONF_DIR when set). `start` waits until it accepts connections and prints the sc:// URL "
        "for SparkSession.builder.remote(...).",
        "sc:// URL",
        "each Connect session's statements reach HBase as its user id (sc://...;user_id=NAME), which the "
        "Connect server does not authenticate",
    )
