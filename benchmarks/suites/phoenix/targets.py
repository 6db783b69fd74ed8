# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The issues' targets (20, 35, 36 and 52), each a ratio measured in the run, with what it must be and whether it is."""

from .constants import (
    CPU_PER_ROW_TARGET,
    DEFAULT_LOOKUP_JDBC_TARGET,
    DEFAULT_LOOKUP_PYSPARK_TARGET,
    FILTERED_JOIN,
    HBASE_PROCESS,
    JDBC_FLOOR,
    JOIN_OVER_PHOENIX_QUERIES,
    JOIN_OVER_PHOENIX_TARGET,
    JOIN_SPEEDUP_QUERIES,
    JOIN_SPEEDUP_TARGET,
    KEYED,
    KEYED_JOIN,
    KEYED_SLOWDOWN_LIMIT,
    LATENCY_TARGET,
    LOAD_SPEEDUP_TARGET,
    LOOKUP,
    LOOKUP_JDBC_TARGET,
    LOOKUP_PHASES_TARGET_MS,
    LOOKUP_PYSPARK_TARGET_MS,
    OURS,
    OURS_JDBC,
    OURS_JOINS_OFF,
    OURS_PACKED,
    OURS_PACKED_JDBC,
    OVER_PHOENIX_PACKED_TARGET,
    OVER_PHOENIX_TARGET,
    PACKED_TARGET_KINDS,
    PARALLEL,
    PHOENIX,
    PHOENIX_PACKED,
    PHOENIX_PROCESS,
    PHOENIX_TABLES,
    PLANNING_PHASES,
    READ_THROUGH_OVER_PHOENIX_PACKED,
    READ_THROUGH_QUERIES,
    SPARK_CPU_SHARE_TARGET,
    SPARK_PROCESS,
    SPEEDUP_TARGET,
    TODAYS_KEYED_JOIN_SPARK_CPU,
)


def target(name, value, required, met, detail):
    return {"target": name, "ratio": value, "required": required, "met": bool(met), "value": detail}


def cpu_detail(engines, engine):
    """The region server's CPU seconds over one more run and the client's (Spark's, or for Phoenix's tables its
    JDBC client's), as a suffix of a target's detail; nothing where the run did not measure them."""
    cpu = engines[engine].get("cpu")
    if cpu is None:
        return ""
    client = PHOENIX_PROCESS if engine in (PHOENIX, PHOENIX_PACKED) else SPARK_PROCESS
    return f", region server {cpu['cpuSeconds'][HBASE_PROCESS]:.2f} s, {client} {cpu['cpuSeconds'][client]:.2f} s CPU"


def faster_target(q, ours, theirs, required):
    """Ours at least `required` times as fast as Phoenix's `theirs` table on query `q`."""
    engines = q["engines"]
    ratio = engines[theirs]["seconds"] / engines[ours]["seconds"]
    return target(
        f"{q['query']}: {ours} at least {required}x as fast as {PHOENIX_TABLES[theirs]}",
        ratio,
        f">= {required}",
        ratio >= required,
        f"{ratio:.2f}x ({ours} {engines[ours]['seconds'] * 1000:.0f} ms{cpu_detail(engines, ours)}; {theirs} "
        f"{engines[theirs]['seconds'] * 1000:.0f} ms{cpu_detail(engines, theirs)})",
    )


def targets(report):
    """Issue 35's targets, each a ratio measured in this run, with what it must be and whether it is."""
    found = []
    for q in report["queries"]:
        engines = q["engines"]
        packed, cells = engines[OURS_PACKED], engines[OURS]
        if q["kind"] in PACKED_TARGET_KINDS:
            for other, required in ((PHOENIX, OVER_PHOENIX_TARGET), (PHOENIX_PACKED, OVER_PHOENIX_PACKED_TARGET)):
                found.append(faster_target(q, OURS_PACKED, other, required))
            per_row = packed["regionServerCpuMicrosPerRow"], cells["regionServerCpuMicrosPerRow"]
            ratio = per_row[0] / per_row[1] if per_row[0] is not None and per_row[1] else None
            found.append(
                target(
                    f"{q['query']}: region server CPU per row read, packed at most {CPU_PER_ROW_TARGET}x today's format",
                    ratio,
                    f"<= {CPU_PER_ROW_TARGET}",
                    ratio is not None and ratio <= CPU_PER_ROW_TARGET,
                    "no rows read"
                    if ratio is None
                    else f"{ratio:.2f}x (packed {per_row[0]:.2f} µs a row, {packed['regionServerCpuSeconds']:.2f} s "
                    f"for {packed['regionRowsRead']} rows; today's {per_row[1]:.2f} µs a row, "
                    f"{cells['regionServerCpuSeconds']:.2f} s for {cells['regionRowsRead']})",
                )
            )
        if q["kind"] == LOOKUP:
            ratio = packed["seconds"] / cells["seconds"]
            found.append(
                target(
                    f"{q['query']}: ours packed no slower than today's format (at most {KEYED_SLOWDOWN_LIMIT}x)",
                    ratio,
                    f"<= {KEYED_SLOWDOWN_LIMIT}",
                    ratio <= KEYED_SLOWDOWN_LIMIT,
                    f"{ratio:.2f}x (packed {packed['seconds'] * 1000:.0f} ms, today's {cells['seconds'] * 1000:.0f} ms)",
                )
            )
    for table, load in report["loads"].items():
        ratio = load[OURS] / load[OURS_PACKED]
        found.append(
            target(
                f"LOAD DATA of {table}: into a packed table at least {LOAD_SPEEDUP_TARGET}x faster than today's format",
                ratio,
                f">= {LOAD_SPEEDUP_TARGET}",
                ratio >= LOAD_SPEEDUP_TARGET,
                f"{ratio:.2f}x (today's {load[OURS]:.1f} s, packed {load[OURS_PACKED]:.1f} s)",
            )
        )
    return found


def issue20_targets(report):
    """Issue 20's targets, ours in today's format against Phoenix's default table, each with its value and
    whether it is met."""
    found = []
    for q in report["queries"]:
        ours, theirs = q["engines"][OURS], q["engines"][PHOENIX]
        if q["kind"] in (LOOKUP, KEYED, KEYED_JOIN):
            found.append(
                {
                    "target": f"{q['query']}: rows the regions read for us at most Phoenix's",
                    "value": f"{ours['regionRowsRead']} against {theirs['regionRowsRead']}",
                    "met": ours["regionRowsRead"] <= theirs["regionRowsRead"],
                }
            )
        if q["kind"] == LOOKUP:
            found.append(
                {
                    "target": f"{q['query']}: latency at most {LATENCY_TARGET}x Phoenix's",
                    "value": f"{ours['seconds'] / theirs['seconds']:.2f}x "
                    f"({ours['seconds'] * 1000:.0f} ms against {theirs['seconds'] * 1000:.0f} ms)",
                    "met": ours["seconds"] <= LATENCY_TARGET * theirs["seconds"],
                }
            )
        if q["kind"] in (PARALLEL, KEYED_JOIN):
            found.append(
                {
                    "target": f"{q['query']}: at least {SPEEDUP_TARGET:.0f}x faster than Phoenix",
                    "value": f"{q['phoenixOverOurs']:.2f}x",
                    "met": q["phoenixOverOurs"] >= SPEEDUP_TARGET,
                }
            )
    return found


def spark_cpu(result):
    return result["cpu"]["cpuSeconds"][SPARK_PROCESS]


def issue36_targets(report):
    """Issue 36's targets, each a ratio measured in this run, with what it must be and whether it is."""
    found = []
    for q in report["queries"]:
        engines = q["engines"]
        if q["query"] in JOIN_SPEEDUP_QUERIES:
            for ours, theirs in ((OURS, PHOENIX), (OURS_PACKED, PHOENIX_PACKED)):
                found.append(faster_target(q, ours, theirs, JOIN_SPEEDUP_TARGET))
        if q["kind"] == KEYED_JOIN and OURS_JOINS_OFF in engines:
            today = TODAYS_KEYED_JOIN_SPARK_CPU.get(report["scale"])
            basis = f"today's {today} s, measured at scale {report['scale']} before issue 36"
            if today is None:
                today = spark_cpu(engines[OURS_JOINS_OFF])
                basis = (
                    f"no measurement of today's at scale {report['scale']}: this run's {OURS_JOINS_OFF}, {today:.2f} s"
                )
            ratio = spark_cpu(engines[OURS]) / today if today else None
            found.append(
                target(
                    f"{q['query']}: Spark's CPU seconds at most {SPARK_CPU_SHARE_TARGET}x today's",
                    ratio,
                    f"<= {SPARK_CPU_SHARE_TARGET}",
                    ratio is not None and ratio <= SPARK_CPU_SHARE_TARGET,
                    f"{ratio:.2f}x ({OURS} {spark_cpu(engines[OURS]):.2f} s, {OURS_PACKED} "
                    f"{spark_cpu(engines[OURS_PACKED]):.2f} s; {basis})",
                )
            )
        if q["kind"] == LOOKUP and q["query"] == "point lookup":
            found += lookup_targets(report, engines)
        if q["kind"] == FILTERED_JOIN:
            for ours, theirs in ((OURS, PHOENIX), (OURS_PACKED, PHOENIX_PACKED)):
                rows = engines[ours]["regionRowsReadByTable"]["lineitem"]
                their_rows = engines[theirs]["regionRowsReadByTable"]["lineitem"]
                found.append(
                    target(
                        f"{q['query']}: lineitem rows the regions read for {ours} at most for {PHOENIX_TABLES[theirs]}",
                        rows / their_rows if their_rows else None,
                        "<= 1",
                        rows <= their_rows,
                        f"{rows} against {their_rows}",
                    )
                )
    return found


def lookup_targets(report, engines):
    """The point lookup's statement cost: Spark's phases and the whole lookup from PySpark, and through our Thrift
    server against Phoenix's JDBC lookup, beside Spark's own SELECT 1 through the same server."""
    ours = engines[OURS]
    phases = sum(ours["sparkPhasesMs"][p] for p in PLANNING_PHASES)
    whole = ours["seconds"] * 1000
    found = [
        target(
            f"point lookup from PySpark: Spark's four planning phases at most {LOOKUP_PHASES_TARGET_MS} ms",
            phases / LOOKUP_PHASES_TARGET_MS,
            "<= 1",
            phases <= LOOKUP_PHASES_TARGET_MS,
            f"{phases:.0f} ms ("
            + ", ".join(f"{p} {ours['sparkPhasesMs'][p]:.0f}" for p in PLANNING_PHASES)
            + f"; SELECT 1 {sum(report['sparkFloors']['SELECT 1']['sparkPhasesMs'][p] for p in PLANNING_PHASES):.0f})",
        ),
        target(
            f"point lookup from PySpark: at most {LOOKUP_PYSPARK_TARGET_MS} ms",
            whole / LOOKUP_PYSPARK_TARGET_MS,
            "<= 1",
            whole <= LOOKUP_PYSPARK_TARGET_MS,
            f"{whole:.0f} ms (Spark's SELECT 1 {report['sparkFloors']['SELECT 1']['seconds'] * 1000:.0f} ms)",
        ),
    ]
    if OURS_JDBC in engines:
        phoenix = engines[PHOENIX]["seconds"]
        ratio = engines[OURS_JDBC]["seconds"] / phoenix
        floor = report["sparkFloors"].get(JDBC_FLOOR)
        found.append(
            target(
                f"point lookup through our Thrift server: at most {LOOKUP_JDBC_TARGET}x Phoenix's JDBC lookup",
                ratio,
                f"<= {LOOKUP_JDBC_TARGET}",
                ratio <= LOOKUP_JDBC_TARGET,
                f"{ratio:.2f}x (ours {engines[OURS_JDBC]['seconds'] * 1000:.0f} ms, Phoenix {phoenix * 1000:.0f} ms"
                + (
                    f"; Spark's floor there, {JDBC_FLOOR}, {floor['seconds'] * 1000:.0f} ms = "
                    f"{floor['seconds'] / phoenix:.2f}x Phoenix's lookup)"
                    if floor
                    else ")"
                ),
            )
        )
    return found


def issue52_targets(report):
    """Issue 52's targets, ours as CREATE TABLE makes it by default (packed), each a ratio of this run."""
    found = []
    over_packed = READ_THROUGH_OVER_PHOENIX_PACKED.get(report["scale"], max(READ_THROUGH_OVER_PHOENIX_PACKED.values()))
    for q in report["queries"]:
        engines = q["engines"]
        if q["query"] in READ_THROUGH_QUERIES:
            found.append(faster_target(q, OURS_PACKED, PHOENIX_PACKED, over_packed))
        if q["query"] in JOIN_OVER_PHOENIX_QUERIES:
            found.append(faster_target(q, OURS_PACKED, PHOENIX, JOIN_OVER_PHOENIX_TARGET))
        if q["kind"] == LOOKUP:
            phoenix = engines[PHOENIX]["seconds"]
            routes = [("from PySpark", OURS_PACKED, DEFAULT_LOOKUP_PYSPARK_TARGET)]
            if OURS_PACKED_JDBC in engines:
                routes.append(("through our Thrift server", OURS_PACKED_JDBC, DEFAULT_LOOKUP_JDBC_TARGET))
            for route, engine, limit in routes:
                ratio = engines[engine]["seconds"] / phoenix
                found.append(
                    target(
                        f"{q['query']} {route}: ours packed at most {limit}x Phoenix's lookup on its default table",
                        ratio,
                        f"<= {limit}",
                        ratio <= limit,
                        f"{ratio:.2f}x (ours {engines[engine]['seconds'] * 1000:.0f} ms, runs "
                        + ", ".join(f"{r * 1000:.0f}" for r in engines[engine]["runs"])
                        + f"; Phoenix {phoenix * 1000:.0f} ms, runs "
                        + ", ".join(f"{r * 1000:.0f}" for r in engines[PHOENIX]["runs"])
                        + ")",
                    )
                )
    return found
