# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""results/<name>.json (every number), .md (the table, also printed) and .png (the chart)."""

import json

from .common import RESULTS, git_commit, machine, today


def write_results(name, report, markdown, chart, results_dir=None):
    """Writes results/<name>.json, .md and .png and prints the markdown."""
    results = results_dir or RESULTS
    results.mkdir(parents=True, exist_ok=True)
    (results / f"{name}.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    (results / f"{name}.md").write_text(markdown(report))
    if chart:
        chart(report, results / f"{name}.png")
    print(markdown(report))


def labelled(name, label, run, results_dir=None):
    """The report of results/<name>.json with this label's run put beside the earlier labels' (a label run again
    replaces its own): one file shows a change's before and after."""
    path = (results_dir or RESULTS) / f"{name}.json"
    report = json.loads(path.read_text()) if path.exists() else {"runs": {}}
    report["runs"][label] = run
    return report


def run_header(command, commit=None):
    """What every labelled run records of itself."""
    return {"command": command, "commit": commit or git_commit(), "date": today(), "machine": machine()}


def target_lines(targets):
    """A markdown list of {"target", "value", "met"}."""
    return [f"- {t['target']}: {t['value']}: {'met' if t['met'] else '**not met**'}" for t in targets]


def target(name, value, met):
    return {"target": name, "value": value, "met": bool(met)}
