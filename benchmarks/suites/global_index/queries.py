# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The queries, in both dialects, each hinted to the index it measures (both engines take the same hints): a lookup
by primary key (the yardstick), by one o_custkey, a 0.1 % range and an IN list of 100 of them, each through the
uncovered and the covered index, a covered aggregate, and the lookup with the index hinted away."""

import csv

from .constants import (
    AGGREGATE,
    COVERED,
    COVERED_COLUMNS,
    ENGINES,
    IN_LIST,
    INDEX_COLUMN,
    KEY_LOOKUP,
    LOOKUP,
    NO_INDEX,
    PHOENIX,
    RANGE,
    UNCOVERED,
)
from .tables import index_name, table_name


def orders_keys(orders_csv):
    """(every o_orderkey, every o_custkey that has orders), each sorted."""
    keys, customers = [], set()
    with open(orders_csv) as f:
        rows = csv.reader(f)
        header = next(rows)
        key, customer = header.index("o_orderkey"), header.index(INDEX_COLUMN)
        for row in rows:
            keys.append(int(row[key]))
            customers.add(int(row[customer]))
    return sorted(keys), sorted(customers)


def queries(keys, customers):
    """[(name, kind, the index it reads (UNCOVERED, COVERED or None), select list, WHERE clause, GROUP BY)]."""
    top = customers[-1]
    one = customers[len(customers) // 3]
    low = customers[len(customers) // 2]
    high = low + top // 1000  # 0.1 % of the customers, so about 0.1 % of the orders
    listed = ", ".join(map(str, customers[len(customers) // 5 :: max(1, len(customers) // 100)][:100]))
    wide_low = customers[len(customers) // 4]
    wide_high = wide_low + top // 100
    every = "*"
    covered = f"o_orderkey, {INDEX_COLUMN}, {', '.join(COVERED_COLUMNS)}"
    found = [("o_orderkey = k (the primary key)", KEY_LOOKUP, None, every, f"o_orderkey = {keys[len(keys) // 3]}", "")]
    for index, columns in ((UNCOVERED, every), (COVERED, covered)):
        found += [
            (f"{INDEX_COLUMN} = c, {index}", LOOKUP, index, columns, f"{INDEX_COLUMN} = {one}", ""),
            (
                f"0.1 % range of {INDEX_COLUMN}, {index}",
                RANGE,
                index,
                columns,
                f"{INDEX_COLUMN} BETWEEN {low} AND {high}",
                "",
            ),
            (f"{INDEX_COLUMN} IN (100 values), {index}", IN_LIST, index, columns, f"{INDEX_COLUMN} IN ({listed})", ""),
        ]
    found += [
        (
            f"covered aggregate over 1 % of {INDEX_COLUMN}",
            AGGREGATE,
            COVERED,
            "o_orderstatus, count(*) AS orders_count, sum(o_totalprice) AS total_price",
            f"{INDEX_COLUMN} BETWEEN {wide_low} AND {wide_high}",
            " GROUP BY o_orderstatus",
        ),
        (f"{INDEX_COLUMN} = c, no index (a full scan)", NO_INDEX, None, every, f"{INDEX_COLUMN} = {one}", ""),
    ]
    return found


def hint(engine, table, kind, index):
    """The hint each engine reads: Phoenix's INDEX(t i) and NO_INDEX, ours INDEX(t, i) and NO_INDEX(t)."""
    if kind == NO_INDEX:
        return "/*+ NO_INDEX */ " if engine == PHOENIX else f"/*+ NO_INDEX({table}) */ "
    if index is None:
        return ""
    name = index_name(engine, table, INDEX_COLUMN, covered=index == COVERED)
    return f"/*+ INDEX({table} {name}) */ " if engine == PHOENIX else f"/*+ INDEX({table}, {name}) */ "


def statements(kind, index, columns, where, group_by):
    """{engine: the statement on its orders table}."""
    found = {}
    for engine in ENGINES:
        table = table_name(engine)
        found[engine] = f"SELECT {hint(engine, table, kind, index)}{columns} FROM {table} WHERE {where}{group_by}"
    return found
