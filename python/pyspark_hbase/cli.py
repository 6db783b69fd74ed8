# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The `spark-hbase` command (also `python -m pyspark_hbase`).

Each subcommand is registered by one `add_*_parser(subparsers)` function listed in SUBCOMMANDS;
it sets `func` (args -> exit code) as the parser default.
"""

import argparse
import sys
import time
from typing import Callable, Optional

from pyspark_hbase._paths import PathsError, __version__, server_jar
from pyspark_hbase.cli_options import data_dir_option
from pyspark_hbase.cli_servers import add_connect_parser, add_thriftserver_parser
from pyspark_hbase.daemons import ServerError
from pyspark_hbase.demo import run_demo
from pyspark_hbase.local import (
    DEFAULT_BLOCK_CACHE,
    DEFAULT_HEAP,
    DEFAULT_MEMSTORE,
    DEFAULT_START_TIMEOUT,
    DEFAULT_STOP_TIMEOUT,
    LocalHBase,
    LocalHBaseError,
)
from pyspark_hbase.session import HBaseSessionError
from pyspark_hbase.spark_catalog import CatalogImplementationError
from pyspark_hbase.spark_cli import conf_flags, run_spark_sql


class CliError(Exception):
    """Reported as `spark-hbase: error: ...` with exit code 1, without a traceback."""


def _local(args: argparse.Namespace) -> LocalHBase:
    return LocalHBase(args.data_dir)


def _local_start(args: argparse.Namespace) -> int:
    hbase = LocalHBase(args.data_dir, heap=args.heap, block_cache=args.block_cache, memstore=args.memstore)
    already = hbase.pid
    began = time.monotonic()

    # On stderr, so that stdout stays the outcome alone.
    def show_progress(waiting: str) -> None:
        print(f"{waiting} ({time.monotonic() - began:.0f} s)", file=sys.stderr, flush=True)

    pid = hbase.start(
        timeout=args.timeout,
        region_servers=args.region_servers,
        server_jars=dict.fromkeys(args.without_server_jar),
        progress=show_progress,
    )
    if already == pid:
        print(
            f"HBase already running (pid {pid}), ZooKeeper at {hbase.zk_address} "
            "(with the memory settings it started with: stop it to change them)"
        )
    else:
        took = (hbase.status() or {}).get("startup_seconds") or "?"
        print(f"HBase started in {took} s (pid {pid}), ZooKeeper at {hbase.zk_address}")
    up = sum(1 for rs in hbase.region_servers() if rs["up"])
    print(f"  region servers: {up}\n  conf dir: {hbase.conf_dir}\n  log:      {hbase.log_file}")
    return 0


def _local_stop(args: argparse.Namespace) -> int:
    print("HBase stopped" if _local(args).stop(timeout=args.timeout) else "HBase was not running")
    return 0


def _local_status(args: argparse.Namespace) -> int:
    hbase = _local(args)
    state = hbase.status()
    if state is None:
        starting = hbase.pid
        print(f"not running (starting, pid {starting})" if starting else "not running", file=sys.stderr)
        return 1
    # Only the address on stdout, so scripts can use $(spark-hbase local status); flushed before
    # the details go to stderr, so that a terminal shows them on lines of their own.
    print(hbase.zk_address, flush=True)
    servers = "\n".join(
        f"  region server {rs['number']}: 127.0.0.1:{rs['port']} "
        + (f"up (pid {rs['pid']})" if rs["up"] else "down")
        + ("" if rs["server_jar"] else ", without the server jar")
        for rs in hbase.region_servers()
    )
    if args.verbose:
        ports = state.get("ports", {})
        print(
            f"pid:      {state.get('pid')}\n"
            f"ports:    " + ", ".join(f"{k} {v}" for k, v in sorted(ports.items())) + "\n"
            f"started:  {state.get('started_at')} (ready in {state.get('startup_seconds') or '?'} s)\n"
            f"data dir: {hbase.data_dir}\nconf dir: {hbase.conf_dir}\nlog:      {hbase.log_file}",
            file=sys.stderr,
        )
    print(servers, file=sys.stderr)
    return 0


def add_local_parser(subparsers: "argparse._SubParsersAction") -> None:
    local = subparsers.add_parser(
        "local",
        help="run an embedded standalone HBase for development",
        description="Start, stop or check the embedded standalone HBase "
        "(master, region server and ZooKeeper in one background JVM, "
        "and with --region-servers N, N - 1 more region servers in JVMs of their own).",
    )
    actions = local.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    common = data_dir_option()

    start = actions.add_parser(
        "start", parents=[common], help="start HBase and wait until it is ready, saying on stderr what it waits for"
    )
    start.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_START_TIMEOUT,
        metavar="SECONDS",
        help=f"give up (and kill HBase) after this long (default {DEFAULT_START_TIMEOUT:g})",
    )
    start.add_argument(
        "--heap",
        default=DEFAULT_HEAP,
        metavar="SIZE",
        help=f"heap of each HBase JVM, as 1024m or 2g (default {DEFAULT_HEAP})",
    )
    start.add_argument(
        "--block-cache",
        type=float,
        default=DEFAULT_BLOCK_CACHE,
        metavar="SHARE",
        help=f"share of a region server's heap for HBase's block cache (default {DEFAULT_BLOCK_CACHE:g})",
    )
    start.add_argument(
        "--memstore",
        type=float,
        default=DEFAULT_MEMSTORE,
        metavar="SHARE",
        help=f"share of a region server's heap for its memstores (default {DEFAULT_MEMSTORE:g}); "
        "with the block cache at most 0.8",
    )
    start.add_argument(
        "--region-servers",
        type=int,
        default=1,
        metavar="N",
        help="run N region servers, each on its own port; 2..N in JVMs of their own, "
        "started again if they are down (default 1)",
    )
    start.add_argument(
        "--without-server-jar",
        type=int,
        action="append",
        default=[],
        metavar="K",
        help="start region server K (2..N) without the server jar, as in a cluster where "
        "it is not deployed everywhere yet (repeatable)",
    )
    start.set_defaults(func=_local_start)

    stop = actions.add_parser("stop", parents=[common], help="stop HBase cleanly")
    stop.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_STOP_TIMEOUT,
        metavar="SECONDS",
        help=f"kill HBase if it has not stopped after this long (default {DEFAULT_STOP_TIMEOUT:g})",
    )
    stop.set_defaults(func=_local_stop)

    status = actions.add_parser(
        "status", parents=[common], help="print the ZooKeeper address and exit 0 if HBase is up, else exit 1"
    )
    status.add_argument("-v", "--verbose", action="store_true", help="also print pid, ports and paths")
    status.set_defaults(func=_local_status)


def _conf(args: argparse.Namespace) -> int:
    print(conf_flags(data_dir=args.data_dir))
    return 0


def add_conf_parser(subparsers: "argparse._SubParsersAction") -> None:
    conf = subparsers.add_parser(
        "conf",
        parents=[data_dir_option()],
        help="print the --jars/--conf flags for spark-submit, spark-sql and pyspark",
        description="Print the flags that load the plugin and point Spark at HBase (the local "
        "HBase, or HBASE_CONF_DIR when set), e.g. `spark-sql $(spark-hbase conf)`.",
    )
    conf.set_defaults(func=_conf)


def _sql(args: argparse.Namespace) -> int:
    sql_args = list(args.extra)
    if args.e is not None:
        sql_args = ["-e", args.e] + sql_args
    if args.f is not None:
        sql_args = ["-f", args.f] + sql_args
    return run_spark_sql(sql_args, data_dir=args.data_dir)


def add_sql_parser(subparsers: "argparse._SubParsersAction") -> None:
    sql = subparsers.add_parser(
        "sql",
        parents=[data_dir_option()],
        help="start the spark-sql CLI wired to HBase",
        description="Run Spark's spark-sql CLI with the plugin, talking to the local HBase "
        "(or HBASE_CONF_DIR when set). Other spark-sql options pass through.",
    )
    sql.add_argument("-e", metavar="SQL", help="run these ';'-separated statements and exit")
    sql.add_argument("-f", metavar="FILE", help="run the statements in FILE and exit")
    sql.set_defaults(func=_sql, accepts_extra=True)


def _server_jar(args: argparse.Namespace) -> int:
    print(server_jar())
    return 0


def add_server_jar_parser(subparsers: "argparse._SubParsersAction") -> None:
    jar = subparsers.add_parser(
        "server-jar",
        help="print the path of the server jar to copy to the region servers",
        description="Print the path of the server jar (filters and coprocessors; HBase only). Copy it "
        "to every region server's lib/ dir (or hbase.dynamic.jars.dir) and restart them.",
    )
    jar.set_defaults(func=_server_jar)


def _demo(args: argparse.Namespace) -> int:
    run_demo(data_dir=args.data_dir)
    return 0


def add_demo_parser(subparsers: "argparse._SubParsersAction") -> None:
    demo = subparsers.add_parser(
        "demo", parents=[data_dir_option()], help="create a demo table in the local HBase and query it through PySpark"
    )
    demo.set_defaults(func=_demo)


SUBCOMMANDS: list[Callable[["argparse._SubParsersAction"], None]] = [
    add_local_parser,
    add_conf_parser,
    add_sql_parser,
    add_demo_parser,
    add_thriftserver_parser,
    add_connect_parser,
    add_server_jar_parser,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="spark-hbase", description="Spark SQL for HBase: tools.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(subparsers)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "accepts_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except (LocalHBaseError, CliError, HBaseSessionError, PathsError, ServerError, CatalogImplementationError) as e:
        print(f"spark-hbase: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `spark-hbase local start | head -1`
        return 0
