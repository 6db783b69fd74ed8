# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The README's example session, run as a newcomer runs it, prints what the README shows."""

import re
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
SPARK_HBASE = str(Path(sys.executable).parent / "spark-hbase")


def readme_example():
    """The command of the README's example session and the output it shows, as written there."""
    section = README.read_text().split("## An example session", 1)[1].split("\n## ", 1)[0]
    command = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    output = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return command, output


def test_the_readmes_example_session_prints_the_output_the_readme_shows(hbase):
    command, shown = readme_example()
    args = shlex.split(command)
    assert args[:2] == [".venv/bin/spark-hbase", "sql"], args
    # A table name of its own, so that the run's other tests and earlier runs do not meet it.
    name = f"orders_{uuid.uuid4().hex[:8]}"

    def renamed(text):
        return re.sub(r"\borders\b", name, text)

    data_dir = ["--data-dir", str(hbase.data_dir)] if hbase else []
    run = subprocess.run(
        [SPARK_HBASE, "sql", *data_dir, *[renamed(a) for a in args[2:]]], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr[-4000:]
    # "Its output, without spark-sql's timing lines."
    printed = [line for line in run.stdout.splitlines() if not line.startswith("Time taken:")]
    assert [line.rstrip() for line in printed if line.strip()] == [
        line.rstrip() for line in renamed(shown).splitlines() if line.strip()
    ]
