# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""`./benchmarks/run chart [name ...]`: each results/*.png again from its .json, with the chart function of the
benchmark that wrote it, without running any workload: for a change to how the charts look.

Each benchmark module under suites/ lists its charts in CHARTS ({result name prefix: chart(report, path)}); this
finds them by importing every suite module by name, so no benchmark is named here."""

import importlib
import json
import pkgutil
import sys
from pathlib import Path

from .common import BENCHMARKS, RESULTS


def charts():
    """{result name prefix: chart function} of every benchmark under suites/."""
    found = {}
    for module in pkgutil.iter_modules([str(BENCHMARKS / "suites")]):
        found.update(getattr(importlib.import_module(f"suites.{module.name}"), "CHARTS", {}))
    return found


def redraw(names, results=RESULTS):
    known = charts()
    unknown = set(names) - set(known)
    if unknown:
        raise SystemExit(f"no chart for {', '.join(sorted(unknown))}; these have one: {', '.join(sorted(known))}")
    for report in sorted(Path(results).glob("*.json")):
        name = report.stem.split("-")[0]
        if name in known and (not names or name in names):
            known[name](json.loads(report.read_text()), report.with_suffix(".png"))
            print(f"wrote {report.with_suffix('.png')}")


if __name__ == "__main__":
    redraw(sys.argv[1:])
