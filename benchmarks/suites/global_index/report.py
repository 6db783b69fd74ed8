# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The global-index benchmark's targets, its tables and its chart."""

from harness.charts import bar_chart, ratio
from harness.results import target, target_lines

from .constants import (
    BUILD_SPEEDUP,
    CHART_LABELS,
    ENGINES,
    FASTER_THAN_PHOENIX_KINDS,
    INDEX_OVER_KEY_LOOKUP,
    KEY_LOOKUP,
    LOOKUP,
    OURS,
    OURS_PACKED,
    PHOENIX,
    STEADY_BLOCKS,
    STEADY_GAIN,
    UNCOVERED,
    WRITE_RATE_KEPT,
)
from .writes import INSERT, WRITERS

OUR_ENGINES = (OURS, OURS_PACKED)


def ms(seconds):
    return f"{seconds * 1000:,.1f}"


def runs_ms(runs):
    return ", ".join(f"{r * 1000:.0f}" for r in runs)


def targets(report):
    found = []
    queries = report["queries"]
    by_key = next(q for q in queries if q["kind"] == KEY_LOOKUP)
    for q in (q for q in queries if q["kind"] == LOOKUP):
        for engine in OUR_ENGINES:
            e = q["engines"][engine]
            block = q["indexRowsPerBlock"][engine]
            index_rows = e["rowsReadPerRun"][q["index"]]
            found.append(
                target(
                    f"{q['query']}, {engine}: index rows read at most the matches ({q['matchKeys']}) + one block "
                    f"({block:.0f} rows)",
                    f"{index_rows:.0f}",
                    index_rows <= q["matchKeys"] + block,
                )
            )
            found.append(
                target(
                    f"{q['query']}, {engine}: no data region read but the {e['dataRegionsHoldingMatches']} holding "
                    "the matches",
                    f"{e['dataRegionsReadBeyondMatches']} others read",
                    e["dataRegionsReadBeyondMatches"] == 0,
                )
            )
            if q["index"] == UNCOVERED:
                over = e["seconds"] / by_key["engines"][engine]["seconds"]
                found.append(
                    target(
                        f"{q['query']}, {engine}: at most {INDEX_OVER_KEY_LOOKUP}x our lookup by primary key",
                        f"{over:.2f}x ({ms(e['seconds'])} ms against {ms(by_key['engines'][engine]['seconds'])} ms)",
                        over <= INDEX_OVER_KEY_LOOKUP,
                    )
                )
    for q in (q for q in queries if q["kind"] in FASTER_THAN_PHOENIX_KINDS):
        for engine in OUR_ENGINES:
            for where, key in (("from PySpark", "seconds"), ("in the JVM", "jvmSeconds")):
                speedup = q["engines"][PHOENIX]["seconds"] / q["engines"][engine][key]
                found.append(
                    target(f"{q['query']}, {engine} {where}: faster than Phoenix", ratio(speedup), speedup > 1)
                )
    insert = report["writes"][INSERT]
    kept = insert["1"]["rowsPerSecond"] / insert["0"]["rowsPerSecond"]
    found.append(
        target(
            f"INSERT with one index keeps at least {WRITE_RATE_KEPT:.0%} of the rate with none",
            f"{kept:.0%} ({insert['1']['rowsPerSecond']:,.0f} against {insert['0']['rowsPerSecond']:,.0f} rows/s)",
            kept >= WRITE_RATE_KEPT,
        )
    )
    build = report["build"]
    speedup = build[PHOENIX]["seconds"] / build[OURS]["seconds"]
    found.append(
        target(
            f"building an index of {build['rows']:,} rows at least {BUILD_SPEEDUP:.0f}x faster than Phoenix",
            f"{ratio(speedup)} ({build[OURS]['seconds']:.1f} s against {build[PHOENIX]['seconds']:.1f} s)",
            speedup >= BUILD_SPEEDUP,
        )
    )
    return found


def warm_up_lines(warmed):
    """How long both engines warmed up before the timed runs, and how fast each was block by block."""
    settled = (
        f"each was steady (no block more than {STEADY_GAIN:.0%} faster than the fastest before it, {STEADY_BLOCKS} "
        "in a row)"
        if warmed["steady"]
        else "**not all were steady when the warm-up ended**"
    )
    return [
        f"Before any timed run, both engines warmed up on every query but the full scan: {warmed['blocks']} blocks of "
        f"{warmed['runsPerBlock']} runs of each, {warmed['statements']:,} statements per engine and way of reading; "
        f"{settled}. A block's ms (the sum over the queries of their medians), first, fastest and last block:",
        "",
        "| engine | first | fastest | last |",
        "|---|---:|---:|---:|",
        *(f"| {path} | {s[0]:,.0f} | {min(s):,.0f} | {s[-1]:,.0f} |" for path, s in warmed["blockMs"].items()),
    ]


def query_lines(report):
    lines = [
        "| query | rows | "
        + " | ".join(f"{e} ms" for e in ENGINES)
        + " | "
        + " | ".join(f"{e} in the JVM ms" for e in OUR_ENGINES)
        + " | Phoenix / ours | Phoenix / ours packed | Phoenix / ours packed in the JVM |",
        "|---|---:|" + "---:|" * (len(ENGINES) + len(OUR_ENGINES) + 3),
    ]
    for q in report["queries"]:
        e = q["engines"]
        lines.append(
            f"| {q['query']} | {q['resultRows']:,} | "
            + " | ".join(ms(e[engine]["seconds"]) for engine in ENGINES)
            + " | "
            + " | ".join(ms(e[engine]["jvmSeconds"]) for engine in OUR_ENGINES)
            + f" | {ratio(e[PHOENIX]['seconds'] / e[OURS]['seconds'])}"
            + f" | {ratio(e[PHOENIX]['seconds'] / e[OURS_PACKED]['seconds'])}"
            + f" | {ratio(e[PHOENIX]['seconds'] / e[OURS_PACKED]['jvmSeconds'])} |"
        )
    lines += [
        "",
        "Rows the regions read a run (data table / uncovered index / covered index) and the region server's CPU a run:",
        "",
        "| query | "
        + " | ".join(f"{e} rows" for e in ENGINES)
        + " | "
        + " | ".join(f"{e} CPU ms" for e in ENGINES)
        + " |",
        "|---|" + "---:|" * (2 * len(ENGINES)),
    ]
    for q in report["queries"]:
        e = q["engines"]
        lines.append(
            f"| {q['query']} | "
            + " | ".join("/".join(f"{v:,.0f}" for v in e[engine]["rowsReadPerRun"].values()) for engine in ENGINES)
            + " | "
            + " | ".join(f"{e[engine]['regionServerCpuMsPerRun']:.1f}" for engine in ENGINES)
            + " |"
        )
    lines += ["", "Every run (ms):", ""]
    for q in report["queries"]:
        lines.append(
            f"- {q['query']}: "
            + "; ".join(f"{e} {runs_ms(q['engines'][e]['runs'])}" for e in ENGINES)
            + "; "
            + "; ".join(f"{e} in the JVM {runs_ms(q['engines'][e]['jvmRuns'])}" for e in OUR_ENGINES)
        )
    return lines


def write_lines(report):
    lines = [
        f"Writing {report['writeRows']:,} orders into a fresh table with 0, 1 and 3 global indexes (rows/s, median of "
        f"{report['repeatWrites']}; every run in the JSON):",
        "",
        "| writer | no index | 1 index | 3 indexes | 1 index / none | 3 / none |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for writer in WRITERS:
        w = report["writes"][writer]
        rates = [w[n]["rowsPerSecond"] for n in ("0", "1", "3")]
        lines.append(
            f"| {writer} | "
            + " | ".join(f"{r:,.0f}" for r in rates)
            + f" | {rates[1] / rates[0]:.0%} | {rates[2] / rates[0]:.0%} |"
        )
    b = report["build"]
    lines += [
        "",
        f"Building a global index of {b['rows']:,} lineitem rows on l_partkey (uncovered; each checked against a full "
        "scan):",
        "",
        "| engine | seconds | rows/s |",
        "|---|---:|---:|",
        *(f"| {e} | {b[e]['seconds']:.1f} | {b[e]['rowsPerSecond']:,.0f} |" for e in (PHOENIX, OURS)),
    ]
    return lines


def markdown(report):
    lines = [
        f"# Global indexes: ours against Phoenix {report['phoenixVersion']}'s, TPC-H orders at scale {report['scale']}",
        "",
        f"`{report['command']}` on {report['date']} ({report['machine']}), {report['orders']:,} orders in "
        f"{report['regions']} regions, {report['repeat']} timed runs a query and engine (medians; ours from "
        "PySpark, the parse on, and as many more in the JVM, its rows collected as Java objects as Phoenix's JDBC "
        "client gets them, without Python's conversion; Phoenix's from its JDBC client, the compile on). Each query "
        "is hinted to the index it measures, on both engines.",
        "",
        *warm_up_lines(report["warmUp"]),
        "",
        *query_lines(report),
        "",
        *write_lines(report),
        "",
        "## Targets",
        "",
        *target_lines(report["targets"]),
        "",
    ]
    return "\n".join(lines)


def chart(report, path):
    groups = [q["query"] for q in report["queries"]]
    series = [
        (
            CHART_LABELS[e],
            [q["engines"][e]["seconds"] for q in report["queries"]],
            [q["engines"][e]["runs"] for q in report["queries"]],
        )
        for e in ENGINES
    ] + [
        (
            f"{CHART_LABELS[e]}, in the JVM",
            [q["engines"][e]["jvmSeconds"] for q in report["queries"]],
            [q["engines"][e]["jvmRuns"] for q in report["queries"]],
        )
        for e in OUR_ENGINES
    ]
    bar_chart(
        path,
        f"Global indexes, TPC-H orders at scale {report['scale']}: ours against Phoenix's (median, every run)",
        groups,
        series,
        unit="ms",
        log_scale=True,
        size=(14, 6),
    )
