# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The planner benchmark's report: its table and its chart."""

from harness.charts import bar_chart, ratio


def markdown(report):
    lines = [
        f"TPC-H scale {report['scale']}, {report['regions']} regions, {report['machine']}, {report['date']}.",
        "",
        "| query | rows matched | pushdown on | rowsRead on | regions on | pushdown off | rowsRead off | speedup |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in report["queries"]:
        on, off = r["pushdownOn"], r["pushdownOff"]
        lines.append(
            f"| {r['query']} | {r['rowsMatched']} | {on['seconds'] * 1000:.0f} ms | {on['rowsRead']} | "
            f"{on['regionsScanned']} of {on['regionsTotal']} | {off['seconds'] * 1000:.0f} ms | {off['rowsRead']} | "
            f"{r['speedup']:.1f}x |"
        )
    p = report["planning"]
    lines += [
        "",
        f"Planning a {p['terms']}-term predicate over {p['regions']} synthetic regions "
        f"({p['regionsKept']} kept, {p['keyRanges']} row ranges): median {p['medianMs']:.1f} ms, "
        f"max {p['maxMs']:.1f} ms over 50 runs.",
    ]
    if report["loadSeconds"]:
        lines += [
            "",
            "Load with INSERT ... SELECT (Puts): "
            + ", ".join(f"{k} {v:.1f} s" for k, v in report["loadSeconds"].items())
            + ".",
        ]
    return "\n".join(lines) + "\n"


def chart(report, path):
    """Median ms of each query with pushdown on and off, on a log scale: from a lookup's milliseconds to a full
    scan's seconds. Runs are dotted where the JSON has them (older results keep medians only)."""
    queries = report["queries"]
    bar_chart(
        path,
        f"Pushdown on and off, TPC-H scale {report['scale']}, {report['regions']} regions",
        [f"{q['query']}\n(speedup {ratio(q['speedup'])})" for q in queries],
        [
            (name, [q[key]["seconds"] for q in queries], [q[key].get("runs") for q in queries])
            for name, key in (("pushdown on", "pushdownOn"), ("pushdown off", "pushdownOff"))
        ],
        unit="ms",
        log_scale=True,
    )
