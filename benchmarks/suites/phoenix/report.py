# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The Phoenix benchmark's report: its tables and its chart."""

from harness.charts import bar_chart
from harness.results import target_lines
from harness.server_sampling import CLOCK_TICKS, SAMPLE_KINDS

from .constants import (
    CHART_LABELS,
    ENGINES,
    HBASE_PROCESS,
    JDBC_ENGINES,
    JOIN_KINDS,
    JOINS_OFF,
    OURS,
    OURS_JOB,
    OURS_JOINS_OFF,
    OURS_PACKED,
    OURS_PACKED_TASK_PER_REGION,
    OURS_TASK_PER_REGION,
    PHOENIX,
    PHOENIX_BULK,
    PHOENIX_PACKED,
    PHOENIX_PROCESS,
    PYTHON_PROCESS,
    SPARK_PROCESS,
    TABLES,
)
from .measure import join_shapes, shapes_text
from .tables import is_phoenix
from .targets import spark_cpu


def runs_ms(runs):
    return ", ".join(f"{r * 1000:.0f}" for r in runs)


def join_features(report):
    """For each join, ours in today's format with merging by key and pushed keys (the defaults) against both off:
    {query, on/off seconds, Spark CPU and rows the regions read each way}."""
    found = []
    for q in report["queries"]:
        on, off = q["engines"][OURS], q["engines"].get(OURS_JOINS_OFF)
        if off:
            found.append(
                {
                    "query": q["query"],
                    "speedup": off["seconds"] / on["seconds"],
                    "seconds": {"on": on["seconds"], "off": off["seconds"]},
                    "sparkCpuSeconds": {"on": spark_cpu(on), "off": spark_cpu(off)},
                    "regionRowsRead": {"on": on["regionRowsRead"], "off": off["regionRowsRead"]},
                    "joins": {
                        "on": join_shapes(on.get("executedPlan", "")),
                        "off": join_shapes(off.get("executedPlan", "")),
                    },
                }
            )
    return found


def phoenix_joins(plan_lines):
    """Phoenix's joins as its EXPLAIN shows them: hash joins (the right side sent to the region servers), sort-merge
    joins, and the skip scans its dynamic server filters make of a hash join's keys."""
    plan = "\n".join(plan_lines)
    shapes = {
        "hash": plan.count("INNER-JOIN TABLE") + plan.count("LEFT-JOIN TABLE"),
        "sort-merge": plan.count("SORT-MERGE-JOIN"),
        "keys skip-scanned (dynamic server filter)": plan.count("DYNAMIC SERVER FILTER"),
    }
    return ", ".join(f"{n} {name}" for name, n in shapes.items() if n) or "no join"


def join_lines(report):
    """Issue 36's joins: each engine's median, the rows each table's regions read, Spark's and the region server's
    CPU, and the joins of the plan that ran; ours with both join features off beside them."""
    joins = [q for q in report["queries"] if q["kind"] in JOIN_KINDS]
    if not joins:
        return []
    tables = list(TABLES)
    lines = [
        "",
        "Joins (issue 36): the median of each engine, and over one more run alone the rows each table's regions "
        "read (read + filtered requests) and the CPU seconds of Spark (driver and executors), the region server "
        f"and Phoenix's client; `{OURS_JOINS_OFF}` is ours in today's format with "
        + " and ".join(f"`{k}={v}`" for k, v in JOINS_OFF.items())
        + ". The joins are those of the plan that ran (adaptive execution's final plan; Phoenix's EXPLAIN):",
        "",
        "| query | engine | median ms | "
        + " | ".join(f"{t} rows read" for t in tables)
        + " | Spark CPU s | region server CPU s | Phoenix client CPU s | joins |",
        "|---|---|---:|" + "---:|" * len(tables) + "---:|---:|---:|---|",
    ]
    for q in joins:
        for i, engine in enumerate([*ENGINES, OURS_JOINS_OFF]):
            r = q["engines"].get(engine)
            if r is None:
                continue
            by_table = r.get("regionRowsReadByTable", {})
            cpu = r["cpu"]["cpuSeconds"]
            shapes = (
                phoenix_joins(r["plan"]) if is_phoenix(engine) else shapes_text(join_shapes(r.get("executedPlan", "")))
            )
            lines.append(
                f"| {q['query'] if i == 0 else ''} | {engine} | {r['seconds'] * 1000:.0f} | "
                + " | ".join(str(by_table.get(t, "")) for t in tables)
                + f" | {cpu[SPARK_PROCESS]:.2f} | {cpu[HBASE_PROCESS]:.2f} | {cpu[PHOENIX_PROCESS]:.2f} | {shapes} |"
            )
    features = join_features(report)
    if features:
        lines += ["", "Merging by key and pushing keys, on against off (ours in today's format, this run):", ""]
        lines += [
            f"- {f['query']}: {f['seconds']['on'] * 1000:.0f} ms against {f['seconds']['off'] * 1000:.0f} ms off, "
            f"{f['speedup']:.2f}x; Spark CPU {f['sparkCpuSeconds']['on']:.2f} s against "
            f"{f['sparkCpuSeconds']['off']:.2f} s; rows the regions read {f['regionRowsRead']['on']} against "
            f"{f['regionRowsRead']['off']}; joins {shapes_text(f['joins']['on'])} against "
            f"{shapes_text(f['joins']['off'])}"
            for f in features
        ]
    return lines


def engines_of(report):
    """The four tables in run order, or the two of a report from before the packed ones."""
    return [e for e in ENGINES if e in report["queries"][0]["engines"]]


def markdown(report):
    lines = load_lines(report) + storage_lines(report) + query_lines(report)
    lines += spark_phase_lines(report) + cpu_lines(report) + join_lines(report) + profile_lines(report)
    return "\n".join(lines + plan_and_target_lines(report)) + "\n"


def load_lines(report):
    """The run, and each load of each table."""
    lines = [
        f"`{report['command']}`, {report['date']}, {report['machine']}, {report['runSeconds'] / 60:.1f} minutes: "
        f"TPC-H scale {report['scale']}, {report['regions']} regions, Phoenix {report['phoenix']['version']}, "
        f"median of {report['repeat']} runs, one on each table a round, after one untimed run on each. Four "
        "tables of each: Phoenix's default "
        "(one cell per column), Phoenix packed ("
        + ", ".join(f"{k}={v}" for k, v in report["phoenix"]["packedTableProperties"].items())
        + "), ours in today's format (one cell per column) and ours packed (LAYOUT PACKED); the same rows, splits "
        "and family settings ("
        + ", ".join(f"{k}={v}" for k, v in report["family"].items())
        + "), flushed and major-compacted, on one HBase.",
        "",
        "| load | rows | CSV MB | LOAD DATA s | LOAD DATA packed s | LOAD DATA / LOAD DATA packed | Phoenix UPSERT s "
        "| Phoenix packed: UPSERT SELECT s | Phoenix CsvBulkLoadTool s | UPSERT / LOAD DATA "
        "| CsvBulkLoadTool / LOAD DATA |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for table, load in report["loads"].items():
        lines.append(
            f"| {table} | {load['rows']} | {load['bytes'] / 1e6:.0f} | {load[OURS]:.1f} | {load[OURS_PACKED]:.1f} | "
            f"{load[OURS] / load[OURS_PACKED]:.2f}x | {load[PHOENIX]:.1f} | {load[PHOENIX_PACKED]:.1f} | "
            f"{load[PHOENIX_BULK]:.1f} | {load[PHOENIX] / load[OURS]:.1f}x | {load[PHOENIX_BULK] / load[OURS]:.1f}x |"
        )
    return lines


def storage_lines(report):
    lines = [
        "",
        "Bytes on disk: each table's store files after its major compaction, and the cells its first row is:",
        "",
        "| table | engine | HBase table | MB on disk | store files | cells a row | against ours |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for table, engines in report["storage"].items():
        for i, (engine, s) in enumerate(engines.items()):
            lines.append(
                f"| {table if i == 0 else ''} | {engine} | {s['table']} | {s['bytes'] / 1e6:.1f} | {s['storeFiles']} "
                f"| {s['cellsPerRow']} | {s['bytes'] / engines[OURS]['bytes']:.2f}x |"
            )
    return lines


def query_lines(report):
    """Each query on each table."""
    lines = [
        "",
        "Each query on each table: the median and every run; the rows the regions read, and the region server's "
        f"CPU seconds (HBase's JVM, read from /proc in steps of {1000 / CLOCK_TICKS:.0f} ms), over one more run "
        "alone:",
        "",
        "| query | rows | engine | median ms | runs (ms) | rows the regions read (read + filtered) "
        "| region server CPU s | CPU µs a row read | engine's own count | against ours packed |",
        "|---|---:|---|---:|---|---:|---:|---:|---|---:|",
    ]
    for q in report["queries"]:
        for i, (engine, r) in enumerate(q["engines"].items()):
            region = (
                f"{r['regionRowsRead']} ({r['regionReadRequests']} + {r['regionFilteredReadRequests']})"
                if "regionRowsRead" in r
                else ""
            )
            cpu = f"{r['cpu']['cpuSeconds'][HBASE_PROCESS]:.2f}" if "cpu" in r else ""
            per_row = r.get("regionServerCpuMicrosPerRow")
            own = (
                f"COUNT_ROWS_SCANNED {r['rowsScanned']}"
                if is_phoenix(engine)
                else f"rowsScanned {r['rowsScanned']}, rowsRead {r['rowsRead']}"
                if "rowsScanned" in r
                else ""
            )
            against = q.get("overOursPacked", {}).get(engine)
            first = [q["query"], str(q["resultRows"])] if i == 0 else ["", ""]
            cells = [
                engine,
                f"{r['seconds'] * 1000:.0f}",
                runs_ms(r["runs"]),
                region,
                cpu,
                "" if per_row is None else f"{per_row:.2f}",
                own,
                "" if against is None else f"{against:.2f}x",
            ]
            lines.append("| " + " | ".join(first + cells) + " |")
    return lines


def plan_and_target_lines(report):
    lines = ["", "Phoenix's plans (EXPLAIN):", ""]
    for q in report["queries"]:
        for engine in (PHOENIX, PHOENIX_PACKED):
            if engine in q["engines"]:
                plan = " / ".join(line.strip() for line in q["engines"][engine]["plan"])
                lines.append(f"- {q['query']}, {engine}: `{plan}`")
    lines += ["", "Targets (issue 35), each a ratio of this run:", ""]
    lines += target_lines(report["targets"])
    met = sum(t["met"] for t in report["targets"])
    lines += ["", f"{met} of {len(report['targets'])} met."]
    lines += ["", "Issue 20's targets, ours in today's format against Phoenix's default table:", ""]
    lines += target_lines(report["issue20Targets"])
    if report.get("issue36Targets"):
        lines += ["", "Issue 36's targets (joins), each a ratio of this run:", ""]
        lines += target_lines(report["issue36Targets"])
        met = sum(t["met"] for t in report["issue36Targets"])
        lines += ["", f"{met} of {len(report['issue36Targets'])} met."]
    if report.get("issue52Targets"):
        lines += [
            "",
            "Issue 52's targets, ours as CREATE TABLE makes it by default (packed), each a ratio of this run:",
        ]
        lines += [""] + target_lines(report["issue52Targets"])
        met = sum(t["met"] for t in report["issue52Targets"])
        lines += ["", f"{met} of {len(report['issue52Targets'])} met."]
    return lines


def spark_phase_lines(report):
    """Our time per statement by Spark's phases, on both our tables, beside Spark's floor."""
    lines = [
        "",
        "Where our time goes, by Spark's phases (median ms; execution includes returning the rows to Python; "
        "through JDBC, the phases are the Thrift server's and execution is the rest of the client's time):",
        "",
        "| query | table | parse | analyze | optimize | plan | execute | in all |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    rows = [
        (q["query"] if engine == OURS else "", engine, q["engines"][engine])
        for q in report["queries"]
        for engine in (OURS, OURS_PACKED, *JDBC_ENGINES)
        if engine in q["engines"]
    ]
    rows += [(f"{name} (Spark's floor)", "", floor) for name, floor in report["sparkFloors"].items()]
    for name, engine, ours in rows:
        phases = ours["sparkPhasesMs"]
        cells = [f"{phases[p]:.0f}" for p in ("parsing", "analysis", "optimization", "planning", "execution")]
        lines.append(f"| {name} | {engine} | {' | '.join(cells)} | {ours['seconds'] * 1000:.0f} |")
    return lines


def cpu_lines(report):
    """CPU seconds of each process over one more run of each query on each table."""
    processes = (HBASE_PROCESS, SPARK_PROCESS, PHOENIX_PROCESS, PYTHON_PROCESS)
    lines = [
        "",
        f"CPU seconds each process spent over one more run of each ({report['machine']}; "
        "cores busy = all CPU seconds / wall seconds):",
        "",
        "| query | engine | wall s | " + " | ".join(f"{p} CPU s" for p in processes) + " | cores busy |",
        "|---|---|---:|" + "---:|" * len(processes) + "---:|",
    ]
    for q in report["queries"]:
        for i, engine in enumerate(engines_of(report)):
            cpu = q["engines"][engine]["cpu"]
            used = " | ".join(f"{cpu['cpuSeconds'][p]:.2f}" for p in processes)
            name = q["query"] if i == 0 else ""
            lines.append(f"| {name} | {engine} | {cpu['wallSeconds']:.2f} | {used} | {cpu['coresBusy']:.2f} |")
    return lines


def profile_lines(report):
    """Shares of the region server's CPU samples by kind of work, over one run of each full-scan aggregate."""
    kinds = [kind for kind, _ in SAMPLE_KINDS] + ["other"]
    lines = [
        "",
        "What the region server's CPU did over one more run of each full-scan aggregate (Java Flight Recorder; "
        "each sample goes to the innermost frame outside the JDK):",
        "",
        "| query | engine | samples | " + " | ".join(kinds) + " |",
        "|---|---|---:|" + "---:|" * len(kinds),
    ]
    for q in report["queries"]:
        first = True
        for engine in engines_of(report):
            profile = q["engines"][engine].get("regionServerProfile")
            if profile:
                shares = " | ".join(f"{profile['shares'][k] * 100:.0f} %" for k in kinds)
                lines.append(f"| {q['query'] if first else ''} | {engine} | {profile['samples']} | {shares} |")
                first = False
    return lines


def chart(report, path):
    """Median ms of each query on each table, every run dotted, on a log scale (lookups to full scans)."""
    queries = report["queries"]

    def label(q):
        job = q["engines"].get(OURS_JOB)
        per_region = q["engines"].get(OURS_TASK_PER_REGION)
        packed_per_region = q["engines"].get(OURS_PACKED_TASK_PER_REGION)
        joins_off = q["engines"].get(OURS_JOINS_OFF)
        return (
            q["query"]
            + (f"\n(ours as a Spark job: {job['seconds'] * 1000:,.0f} ms)" if job else "")
            + (f"\n(ours, a task per region: {per_region['seconds'] * 1000:,.0f} ms)" if per_region else "")
            + (
                f"\n(ours packed, a task per region: {packed_per_region['seconds'] * 1000:,.0f} ms)"
                if packed_per_region
                else ""
            )
            + (f"\n(ours, join features off: {joins_off['seconds'] * 1000:,.0f} ms)" if joins_off else "")
        )

    engines = engines_of(report)
    bar_chart(
        path,
        f"Phoenix {report['phoenix']['version']} and spark-hbase-sql on one HBase, TPC-H scale {report['scale']}"
        + (", default and packed tables" if OURS_PACKED in engines else ""),
        [label(q) for q in queries],
        [
            (
                CHART_LABELS[engine] if len(engines) > 2 else engine,
                [q["engines"][engine]["seconds"] for q in queries],
                [q["engines"][engine]["runs"] for q in queries],
            )
            for engine in engines
        ],
        unit="ms",
        log_scale=True,
        # About 1.6 inches a query: the joins made 13 of them.
        size=(max(16, 1.6 * len(queries)), 6.5) if len(engines) > 2 else (14, 6),
    )
