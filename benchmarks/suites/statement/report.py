# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The statement benchmark's report: its tables and its chart of each statement's phases."""

import textwrap

from harness.charts import figure
from harness.timing import SPARK_PHASES


def markdown(report):
    lines = []
    for label, run in report["runs"].items():
        load = run.get("loadAverage")
        lines += [
            f"**{label}**: `{run['command']}` at {run['commit']}, {run['date']}, {run['machine']}"
            + (f", load average {load[0]} at the start and {load[1]} at the end" if load else ""),
            "",
        ]
        if run["statements"]:
            lines += small_table_lines(run)
        lines += lookup_lines(run.get("lookups") or {})
    return "\n".join(lines)


def small_table_lines(run):
    lines = [
        "| statement | median ms | parsing | analysis | optimization | planning | execution | "
        "catalog rows read | range index rows read | meta rows read |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, s in run["statements"].items():
        p, r = s["phasesMs"], s["rowsReadPerRun"]
        lines.append(
            f"| {name} | {s['medianMs']:.1f} | {p['parsing']:.1f} | {p['analysis']:.1f} | {p['optimization']:.1f} | "
            f"{p['planning']:.1f} | {p['execution']:.1f} | {r['catalog']:g} | {r['range index']:g} | {r['meta']:g} |"
        )
    lines += ["", "Every run (ms):", ""]
    lines += [f"- {name}: {', '.join(map(str, s['runsMs']))}" for name, s in run["statements"].items()]
    lines.append("")
    return lines


# Each path a lookup is timed on: its label, and the names of its server's and its client's processes.
CLIENTS = {
    "pyspark": ("PySpark", "Spark", "Python"),
    "jdbc": ("JDBC (Thrift server)", "Thrift server", "JDBC client"),
    "jdbc-hive": (
        "JDBC (Thrift server, Spark's tables in a Hive metastore)",
        "Thrift server (Hive metastore)",
        "JDBC client (Hive metastore)",
    ),
}


def lookup_lines(lookups_run):
    """The lookups on the lineitem-shaped table from PySpark and through JDBC, by Spark's phase."""
    if not lookups_run:
        return []
    lines = [
        "Lookups on the lineitem-shaped table (600,000 rows, 16 regions), from PySpark and from a JVM JDBC client "
        "through our Thrift servers, run after run alternately; the phases are Spark's (the server's for JDBC), the "
        "rest is execution and the return of the rows to the client:",
        "",
        "| statement | rows | client | median ms | parsing | analysis | optimization | planning | four phases | rest "
        "| CPU ms a run: Spark or Thrift server JVM | HBase | client (Python or JDBC JVM) |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, result in lookups_run.items():
        for client, (label, server, user) in CLIENTS.items():
            if client not in result:
                continue
            t, p = result[client], result[client]["phasesMs"]
            if p:
                four = sum(p[k] for k in SPARK_PHASES)
                cells = [f"{p[k]:.1f}" for k in SPARK_PHASES] + [f"{four:.1f}", f"{p['execution']:.1f}"]
            else:
                cells = [""] * 6
            c = t.get("cpuMsPerRun")
            if c:
                cells += [f"{c[server]:.1f}", f"{c['HBase']:.1f}", f"{c[user]:.1f}"]
            else:
                cells += [""] * 3
            lines.append(f"| {name} | {result['rows']} | {label} | {t['medianMs']:.1f} | {' | '.join(cells)} |")
    lines += ["", "Every run (ms):", ""]
    for name, result in lookups_run.items():
        for client in CLIENTS:
            if client in result:
                lines.append(f"- {name}, {client}: {', '.join(map(str, result[client]['runsMs']))}")
    lines.append("")
    return lines


def chart(report, path):

    phases = ("parsing", "analysis", "optimization", "planning", "execution")
    labels = list(report["runs"])

    def bars(run):
        """{group: phasesMs}: the small table's statements, then each lookup from each client."""
        found = {name: s["phasesMs"] for name, s in run["statements"].items()}
        for name, result in (run.get("lookups") or {}).items():
            for client, title in (("pyspark", "PySpark"), ("jdbc", "JDBC"), ("jdbc-hive", "JDBC, Hive")):
                if result.get(client, {}).get("phasesMs"):
                    found[f"{textwrap.fill(name, 16)}\n{title}"] = result[client]["phasesMs"]
        return found

    names = list(dict.fromkeys(n for run in report["runs"].values() for n in bars(run)))
    fig = figure((max(10, len(names) * 1.1), 5.5))
    axes = fig.subplots()
    width = 0.8 / len(labels)
    for j, label in enumerate(labels):
        statements = bars(report["runs"][label])
        bottoms = [0.0] * len(names)
        for k, phase in enumerate(phases):
            heights = [statements[n][phase] if n in statements else 0 for n in names]
            axes.bar(
                [i + j * width for i in range(len(names))],
                heights,
                width,
                bottom=bottoms,
                color=f"C{k}",
                label=phase if j == 0 else None,
                edgecolor="black",
                linewidth=0.4,
            )
            bottoms = [b + h for b, h in zip(bottoms, heights)]
        for i, total in enumerate(bottoms):
            if total:
                axes.text(i + j * width, total, label, ha="center", va="bottom", fontsize=6, rotation=90)
    axes.set_xticks([i + width * (len(labels) - 1) / 2 for i in range(len(names))], names, fontsize=7)
    axes.set_ylabel("median ms, by Spark's phase (execution: the rest)")
    axes.set_title("One statement's cost, by phase, per labelled run")
    axes.legend()
    fig.savefig(path, dpi=110)
