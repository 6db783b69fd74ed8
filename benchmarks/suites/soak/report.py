# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The soak's report: throughput over time, its table and its chart."""

import statistics

from harness.charts import figure

from .workload import BUCKET_S


def throughput(ops, minutes):
    """Per BUCKET_S seconds: successful statements per second of each kind, and rows written per second."""
    buckets = int(minutes * 60 // BUCKET_S) + 1
    kinds = sorted({kind for _, kind, _, _ in ops})
    series = {kind: [0.0] * buckets for kind in kinds}
    rows_written = [0.0] * buckets
    failed = [0.0] * buckets
    for at, kind, ok, rows in ops:
        b = min(int(at // BUCKET_S), buckets - 1)
        if ok:
            series[kind][b] += 1 / BUCKET_S
            if kind in ("insert", "load"):
                rows_written[b] += rows / BUCKET_S
        else:
            failed[b] += 1 / BUCKET_S
    return {
        "bucketSeconds": BUCKET_S,
        "statementsPerSecond": {k: [round(x, 3) for x in v] for k, v in series.items()},
        "rowsWrittenPerSecond": [round(x, 1) for x in rows_written],
        "failedPerSecond": [round(x, 3) for x in failed],
        "medianRowsWrittenPerSecond": round(statistics.median(rows_written[:-1] or rows_written), 1),
    }


def markdown(report):
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['minutes']} minutes:",
        "",
        f"- rows acknowledged {report['acknowledgedRows']:,} (attempted {report['attemptedRows']:,}); "
        f"in the table at the end {report['rowsInTable']:,}; **acknowledged but missing "
        f"{report['missingAcknowledged']}**; rows no writer wrote, or with wrong values, "
        f"{report['unknownOrWrongRows']}; **wrong answers {report['wrongAnswerCount']}**",
        "- statements that succeeded: " + ", ".join(f"{k} {v:,}" for k, v in sorted(report["operations"].items())),
        f"- median rows written per second (per {report['throughput']['bucketSeconds']} s): "
        f"{report['throughput']['medianRowsWrittenPerSecond']:,}",
        "- faults: " + "; ".join(f"{at / 60:.1f} min {what}" for at, what in report["events"]),
        "",
        "| errors by kind | count |",
        "|---|---|",
    ]
    lines += [f"| {kind.replace('|', '/')} | {n} |" for kind, n in report["errorsByKind"].items()] or ["| none | 0 |"]
    lines += ["", "| JVM | when | threads | open files | heap after GC (MB) | open scanners | TCP to HBase |"]
    lines += ["|---|---|---|---|---|---|---|"]
    for sample in report["counts"]:
        if sample["label"] == "during":
            continue
        for name, j in sample["jvms"].items():
            lines.append(
                f"| {name} | {sample['label']} ({sample['at_s'] / 60:.1f} min) | {j.get('threads', '-')} | "
                f"{j.get('fds', '-')} | {j.get('heapAfterGcMb', '-')} | {scanners(j)} | "
                f"{j.get('hbaseConnections', '-')} |"
            )
    for sample in report["counts"]:
        if sample["label"] != "during" and "threadPools" in sample["jvms"]["driver"]:
            pools = ", ".join(f"{k} {v}" for k, v in sample["jvms"]["driver"]["threadPools"].items())
            lines += ["", f"Driver threads by pool at the {sample['label']}: {pools}"]
    return "\n".join(lines) + "\n"


def scanners(counts):
    value = counts.get("activeScanners")
    return "-" if value is None else value


def chart(report, path):
    t = report["throughput"]
    width = t["bucketSeconds"] / 60
    fig = figure((11, 8))
    top, middle, bottom = fig.subplots(3, 1, sharex=True, height_ratios=[2, 1.3, 1.3])
    xs = [i * width for i in range(len(t["rowsWrittenPerSecond"]))]
    top.plot(xs, t["rowsWrittenPerSecond"], label="rows written per second (INSERT and LOAD DATA)", color="C0")
    top.set_ylabel("rows / s")
    twin = top.twinx()
    for i, (kind, values) in enumerate(sorted(t["statementsPerSecond"].items())):
        if kind in ("keyed read", "count", "aggregate", "insert"):
            twin.plot(xs, values, label=f"{kind} statements / s", color=f"C{i + 1}", alpha=0.8)
    twin.plot(xs, t["failedPerSecond"], label="failed statements / s", color="red", linestyle=":")
    twin.set_ylabel("statements / s")
    handles = top.get_legend_handles_labels()[0] + twin.get_legend_handles_labels()[0]
    top.legend(handles=handles, fontsize=7, loc="upper left", ncols=3)
    for at, what in report["events"]:
        if "killing" in what or "split:" in what:
            for axes in (top, middle, bottom):
                axes.axvline(at / 60, color="grey", alpha=0.4, linestyle="--")
            top.annotate(what.replace("killing ", "kill "), (at / 60, 0), rotation=90, fontsize=6, va="bottom")
    samples = report["counts"]
    names = sorted({n for s in samples for n in s["jvms"]})
    for i, name in enumerate(names):
        points = [(s["at_s"] / 60, s["jvms"][name]) for s in samples if name in s["jvms"]]
        heap = [(x, j["heapAfterGcMb"]) for x, j in points if "heapAfterGcMb" in j]
        threads = [(x, j["threads"]) for x, j in points if "threads" in j]
        if heap:
            middle.plot(*zip(*heap), marker="o", label=name, color=f"C{i}")
        if threads:
            bottom.plot(*zip(*threads), marker="o", label=name, color=f"C{i}")
    middle.set_ylabel("heap after GC (MB)")
    bottom.set_ylabel("threads")
    middle.legend(fontsize=7, loc="upper left", ncols=4)
    bottom.set_xlabel("minutes")
    for axes in (top, middle, bottom):
        axes.grid(alpha=0.3)
    fig.suptitle(
        f"Soak, {report['minutes']} minutes: {report['acknowledgedRows']:,} rows acknowledged, "
        f"{report['missingAcknowledged']} missing, {report['wrongAnswerCount']} wrong answers"
    )
    fig.savefig(path, dpi=120)
