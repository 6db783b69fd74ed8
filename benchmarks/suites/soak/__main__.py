# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run soak`: see the package's docstring."""

import argparse
import shutil
import sys
import threading
import time
import traceback
from collections import Counter

from harness.common import WORK, log, machine, today
from harness.platform import LocalHBase
from harness.results import write_results
from harness.sessions import empty_hbase, spark_session

from . import __doc__ as DOC
from .counts import counts, sampler
from .report import chart, markdown, throughput
from .workload import READERS, WRITERS, Soak


def arguments():
    parser = argparse.ArgumentParser(prog="./benchmarks/run soak", description=DOC.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--chaos-every", type=float, default=3, help="minutes between splits and restarts")
    parser.add_argument(
        "--hbase-dir",
        help="soak an embedded HBase already running there (the sequence benchmark's) instead of a fresh one of "
        "three region servers; with one region server, the chaos only splits regions",
    )
    return parser.parse_args()


def start_hbase(hbase_dir):
    """The HBase already running in hbase_dir, or a fresh one of three region servers."""
    if hbase_dir:
        hbase = LocalHBase(hbase_dir)
        if not hbase.is_running():
            raise SystemExit(f"no embedded HBase runs in {hbase_dir}")
        return hbase
    hbase = empty_hbase("hbase-soak")
    hbase.start(region_servers=3)
    return hbase


def report_of(args, soak, final, missing, unknown, minutes, samples):
    ops, acked = soak.ops, soak.acked
    return {
        "minutes": round(minutes, 1),
        "chaosEveryMinutes": args.chaos_every,
        "writers": WRITERS,
        "readers": READERS,
        "acknowledgedRows": len(acked.acked),
        "attemptedRows": len(acked.attempted),
        "rowsInTable": len(final),
        "missingAcknowledged": len(missing),
        "unknownOrWrongRows": len(unknown),
        "wrongAnswers": ops.wrong[:20],
        "wrongAnswerCount": len(ops.wrong),
        "operations": dict(Counter(kind for _, kind, ok, _ in ops.ops if ok)),
        "errorsByKind": dict(ops.errors.most_common()),
        "events": ops.events,
        "throughput": throughput(ops.ops, minutes),
        "counts": samples,
        "machine": machine(),
        "date": today(),
        "command": f"./benchmarks/run soak --minutes {args.minutes:g} --chaos-every {args.chaos_every:g}",
    }


def main():
    args = arguments()
    hbase = start_hbase(args.hbase_dir)
    spark = spark_session(
        "spark-hbase-sql soak",
        hbase.data_dir,
        {"spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "4"},
        driver_memory="2g",
    )
    driver_pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())
    files = WORK / "soak-files"
    shutil.rmtree(files, ignore_errors=True)
    files.mkdir(parents=True)
    soak = Soak(spark, hbase, files, args.chaos_every)
    soak.create_table()
    soak.warm_up()
    samples = [counts(soak, driver_pid, "start")]
    soak.restart_clock()
    log(f"soak: {args.minutes} minutes, a split or a region server restart every {args.chaos_every} minutes")
    watcher = threading.Thread(target=sampler, args=(soak, driver_pid, samples), daemon=True)
    soak.run_threads([*soak.workers(), watcher], args.minutes * 60)
    minutes = (time.monotonic() - soak.t0) / 60
    log("soak over; checking every acknowledged write")
    hbase.start(region_servers=soak.region_servers)  # in case the last restart was cut short
    final, missing, unknown = soak.final_check()
    # HBase's client keeps idle pool threads for 60 s: counted after that, a thread still there is held.
    time.sleep(75)
    samples.append(counts(soak, driver_pid, "end"))
    report = report_of(args, soak, final, missing, unknown, minutes, samples)
    write_results(f"soak-{args.minutes:g}m", report, markdown, chart)
    spark.stop()
    if not args.hbase_dir:
        hbase.stop()
    raise SystemExit(0 if not missing and not unknown and not soak.ops.wrong else 1)


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception:
        traceback.print_exc()
        sys.exit(2)
