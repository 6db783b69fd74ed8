# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The streaming sink's guarantee under a crashing driver: a pipeline from a file source through a
transformation into an HBase table, its driver killed (SIGKILL) in the middle of batches at random
points and restarted from its checkpoint, ends with exactly the rows the input makes, each with its
latest values, and no other row. The restarts alternate between writeStream.format("hbase") and
toTable("hbase.t"), which share one commit record per query and table."""

import random

from sink_stream_runs import expected_rows, kill_mid_batch, run_to_the_end, start_job, write_input

KILLS = 3


def _table(spark, name):
    spark.sql(
        f"CREATE TABLE {name} (id INT, val INT, label STRING, PRIMARY KEY (id)) "
        f"MAPPED BY ({name}, COLS=[val=f.val, label=f.label]) SPLIT ON ((5000), (10000), (15000))"
    )


def test_a_stream_killed_mid_batch_and_restarted_writes_each_row_once_with_its_latest_values(
    spark, hbase, table_name, tmp_path
):
    rng = random.Random()
    input_dir, checkpoint = tmp_path / "input", tmp_path / "checkpoint"
    write_input(input_dir, files=10, rows_per_file=6000, seed=rng.randrange(1 << 30))
    _table(spark, table_name)
    landed = []
    for attempt in range(KILLS):
        job, _ = start_job(hbase, input_dir, checkpoint, table_name, ("format", "toTable")[attempt % 2], tmp_path)
        landed.append(kill_mid_batch(job, checkpoint, rng))
    job, log = start_job(hbase, input_dir, checkpoint, table_name, "format", tmp_path)
    run_to_the_end(job, log)
    assert any(landed), "no kill landed while a batch was in flight"
    got = {r.id: (r.val, r.label) for r in spark.sql(f"SELECT id, val, label FROM {table_name}").collect()}
    expected = expected_rows(input_dir)
    assert len(got) == len(expected)
    assert got == expected
