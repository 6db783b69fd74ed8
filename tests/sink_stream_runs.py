# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Runs of sink_stream_job.py for the tests that kill its driver: input files written here, the
driver started with spark-submit and killed (SIGKILL) while a batch is in flight, restarted from its
checkpoint until it finishes, and the rows the table must hold computed here from the input files
alone, not by the code under test."""

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

from pyspark_hbase import session as hbase_session
from spark_submit import SUBMIT, submit_env

REPO = Path(__file__).resolve().parents[1]
KEYS = 20_000


def write_input(directory: Path, files: int, rows_per_file: int, seed: int) -> None:
    """JSON lines (id, v, name); a key appears at most once per file and again in later files,
    which are one second apart in modification time, the order the stream reads them in."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    base = time.time() - files - 10
    for f in range(files):
        ids = rng.sample(range(KEYS), rows_per_file)
        lines = (json.dumps({"id": i, "v": rng.randrange(10_000), "name": f"n{f}-{i}"}) for i in ids)
        path = directory / f"part-{f:03d}.json"
        path.write_text("\n".join(lines) + "\n")
        os.utime(path, (base + f, base + f))


def expected_rows(directory: Path) -> dict:
    """What the job's transformation makes of the input: rows with v % 10 == 3 dropped, val = 2v + 1,
    label = upper(name), and for each id the values of the latest file that has it."""
    latest = {}
    for path in sorted(directory.glob("part-*.json"), key=lambda p: p.stat().st_mtime):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            if row["v"] % 10 != 3:
                latest[row["id"]] = (row["v"] * 2 + 1, row["name"].upper())
    return latest


def _batch_ids(directory: Path) -> list:
    return [int(p.name) for p in directory.glob("*") if p.name.isdigit()] if directory.exists() else []


def in_flight(checkpoint: Path) -> bool:
    """A batch has its offsets logged but not its commit: the driver is in its middle."""
    offsets, commits = _batch_ids(checkpoint / "offsets"), _batch_ids(checkpoint / "commits")
    return bool(offsets) and max(offsets) > max(commits, default=-1)


def start_job(local_hbase, input_dir: Path, checkpoint: Path, table: str, route: str, work: Path, split=False):
    command = [
        str(SUBMIT),
        "--master",
        "local[2]",
        *hbase_session.submit_args(data_dir=local_hbase.data_dir if local_hbase else None),
        "--conf",
        "spark.ui.enabled=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        str(REPO / "tests" / "sink_stream_job.py"),
        str(input_dir),
        str(checkpoint),
        table,
        route,
        *([str(local_hbase.data_dir)] if split else []),
    ]
    log = open(work / f"job-{time.monotonic_ns()}.log", "w")
    # A session of its own, so the kill takes the driver's JVM and its Python process together.
    return subprocess.Popen(
        command, cwd=work, env=submit_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    ), Path(log.name)


def kill_mid_batch(
    process, checkpoint: Path, rng: random.Random, timeout: float = 180, most_seconds: float = 0.8
) -> bool:
    """Waits for a batch in flight, lets it run a random while (at most `most_seconds`), then
    SIGKILLs the driver; whether the batch was still in flight when it died (False: the job ended or
    the batch finished first)."""
    deadline = time.monotonic() + timeout
    while not in_flight(checkpoint):
        assert process.poll() is None or in_flight(checkpoint), "the job ended before a batch was in flight"
        assert time.monotonic() < deadline, "no batch started"
        time.sleep(0.05)
    time.sleep(rng.uniform(0.0, most_seconds))
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=60)
    return in_flight(checkpoint)


def run_to_the_end(process, log: Path, timeout: float = 300) -> None:
    assert process.wait(timeout=timeout) == 0, log.read_text()[-6000:]
    assert "DONE" in log.read_text()
