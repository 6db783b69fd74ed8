# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Where the benchmarks keep things, their log lines, the JDK's tools and what every report says of the run."""

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
WORK = BENCHMARKS / "work"
# BENCH_RESULTS_DIR sends the results elsewhere (the sequence benchmark runs the others at quick scales).
RESULTS = Path(os.environ.get("BENCH_RESULTS_DIR") or BENCHMARKS / "results")
JAVA_PROGRAMS = BENCHMARKS / "java"


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def jdk_tool(name):
    """A JDK command (java, jstat, jcmd): JAVA_HOME's, else the one on the PATH."""
    path = Path(os.environ.get("JAVA_HOME", "/usr")) / "bin" / name
    return str(path) if path.exists() else name


def machine():
    return f"{os.cpu_count()} cores"


def today():
    return time.strftime("%Y-%m-%d")


def git_commit():
    """The checkout's short commit."""
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()


def tpch_scale(scale):
    """The scale as tpchgen-cli and the result files name it: 1, not 1.0."""
    return int(scale) if scale == int(scale) else scale


def scale_and_regions_arguments(doc, repeat_help="timed runs per query and mode (median)"):
    """The arguments every TPC-H benchmark takes, and the scale as tpchgen-cli names it (1, not 1.0)."""
    import argparse

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.1)
    parser.add_argument("--regions", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=3, help=repeat_help)
    args = parser.parse_args()
    return args, tpch_scale(args.scale)
