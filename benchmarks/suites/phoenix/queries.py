# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""The query set, in both dialects: lookups, scans and full-scan aggregates (TPC-H Q1 and Q6), and issue 36's joins
(a keyed join, a join with a few hundred orders picked by price, TPC-H Q3 and Q12)."""

from decimal import Decimal

from .constants import ENGINES, FILTERED_JOIN, FILTERED_ORDERS, KEYED, KEYED_JOIN, LOOKUP, PARALLEL, SCAN, TPCH_JOIN
from .tables import is_phoenix, table_name


def price_bound(csv_dir, count):
    """The o_totalprice that `count` orders cost more than (ties aside): the join with a small filtered side."""
    with (csv_dir / "orders.csv").open() as f:
        column = f.readline().strip().split(",").index("o_totalprice")
        prices = sorted((Decimal(line.split(",")[column]) for line in f), reverse=True)
    return prices[min(count, len(prices) - 1)]


def order_keys(csv_dir):
    with (csv_dir / "orders.csv").open() as f:
        next(f)
        return sorted(int(line.split(",", 1)[0]) for line in f)


def queries(keys, max_key):
    """(name, Spark SQL, Phoenix SQL, kind): the same query in each dialect, with {l} and {o} for the tables.
    Aggregates name their columns, so that the answers line up by name."""
    point = keys[len(keys) // 3]
    low = keys[len(keys) // 2]
    high = low + max_key // 1000  # 0.1 % of the key space
    in_keys = ", ".join(map(str, keys[len(keys) // 5 :: len(keys) // 100][:100]))
    join_low, join_high = keys[len(keys) // 4], keys[len(keys) // 4] + max_key // 10  # 10 % of the orders
    same = [
        ("point lookup", f"SELECT * FROM {{l}} WHERE l_orderkey = {point} AND l_linenumber = 1", LOOKUP),
        ("0.1 % range on the leading key", f"SELECT * FROM {{l}} WHERE l_orderkey BETWEEN {low} AND {high}", LOOKUP),
        ("IN list of 100 keys", f"SELECT * FROM {{l}} WHERE l_orderkey IN ({in_keys})", LOOKUP),
        ("l_linenumber = 7 (second key column)", "SELECT * FROM {l} WHERE l_linenumber = 7", KEYED),
        (
            "value columns: l_shipmode = 'AIR' AND l_quantity < 2",
            "SELECT * FROM {l} WHERE l_shipmode = 'AIR' AND l_quantity < 2",
            SCAN,
        ),
        ("count(*)", "SELECT count(*) AS row_count FROM {l}", PARALLEL),
    ]
    q1 = """
        SELECT l_returnflag, l_linestatus,
               sum(l_quantity) AS sum_qty,
               sum(l_extendedprice) AS sum_base_price,
               sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
               sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
               avg(l_quantity) AS avg_qty,
               avg(l_extendedprice) AS avg_price,
               avg(l_discount) AS avg_disc,
               count(*) AS count_order
        FROM {l}
        WHERE l_shipdate <= %s
        GROUP BY l_returnflag, l_linestatus
        ORDER BY l_returnflag, l_linestatus"""
    q6 = """
        SELECT sum(l_extendedprice * l_discount) AS revenue
        FROM {l}
        WHERE l_shipdate >= %s AND l_shipdate < %s
          AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24"""
    join = f"""
        SELECT o_orderpriority, count(*) AS line_count, sum(l_extendedprice) AS revenue
        FROM {{l}} JOIN {{o}} ON l_orderkey = o_orderkey
        WHERE l_orderkey BETWEEN {join_low} AND {join_high} AND o_orderkey BETWEEN {join_low} AND {join_high}
        GROUP BY o_orderpriority
        ORDER BY o_orderpriority"""

    # Q1's date is 1998-12-01 - 90 days; Q6's a year from 1994-01-01: computed, as both dialects spell it otherwise.
    return [(name, sql, sql, kind) for name, sql, kind in same] + [
        ("TPC-H Q1", q1 % spark_date("1998-09-02"), q1 % phoenix_date("1998-09-02"), PARALLEL),
        (
            "TPC-H Q6",
            q6 % (spark_date("1994-01-01"), spark_date("1995-01-01")),
            q6 % (phoenix_date("1994-01-01"), phoenix_date("1995-01-01")),
            PARALLEL,
        ),
        ("join with orders, 10 % key range", join, join, KEYED_JOIN),
    ]


def spark_date(day):
    return f"date '{day}'"


def phoenix_date(day):
    return f"TO_DATE('{day}', 'yyyy-MM-dd')"


def q3_and_q12():
    """TPC-H Q3 and Q12 with a %s per date: (Q3 as Spark's, as Phoenix's, Q12 as Spark's, as Phoenix's)."""
    q3_select = """
        SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority"""
    q3_rest = """
          AND o_orderdate < %s AND l_shipdate > %s
        GROUP BY l_orderkey, o_orderdate, o_shippriority
        ORDER BY revenue DESC, o_orderdate, l_orderkey
        LIMIT 10"""
    q3_spark = (
        q3_select
        + """
        FROM {c}, {o}, {l}
        WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey"""
    )
    q3_phoenix = (
        q3_select
        + """
        FROM {l} JOIN {o} ON l_orderkey = o_orderkey JOIN {c} ON c_custkey = o_custkey
        WHERE c_mktsegment = 'BUILDING'"""
    )
    q12_select = """
        SELECT l_shipmode,
               sum(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH' THEN 1 ELSE 0 END)
                   AS high_line_count,
               sum(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH' THEN 1 ELSE 0 END)
                   AS low_line_count"""
    q12_rest = """
          l_shipmode IN ('MAIL', 'SHIP') AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
          AND l_receiptdate >= %s AND l_receiptdate < %s
        GROUP BY l_shipmode
        ORDER BY l_shipmode"""
    q12_spark = (
        q12_select
        + """
        FROM {o}, {l}
        WHERE o_orderkey = l_orderkey AND"""
    )
    q12_phoenix = (
        q12_select
        + """
        FROM {o} JOIN {l} ON o_orderkey = l_orderkey
        WHERE"""
    )

    return q3_spark + q3_rest, q3_phoenix + q3_rest, q12_spark + q12_rest, q12_phoenix + q12_rest


def join_queries(price):
    """Issue 36's joins, as queries() gives them, with {c} for customer: `FILTERED_ORDERS` orders picked by
    o_totalprice > `price` (price_bound) joined with their lines, TPC-H Q3 and Q12.
    Phoenix builds a hash table of each join's right side and streams its left: its text puts the big table
    first where TPC-H's does not, as Phoenix's documentation advises (Q3 names lineitem first; Q12's orders and
    the filtered lineitem stay in TPC-H's order, the lineitem rows the smaller side); ours keeps TPC-H's text.
    Q3's ORDER BY breaks TPC-H's ties on revenue and date by l_orderkey, so that its LIMIT keeps the same rows
    on both engines."""
    filtered = f"""
        SELECT l_shipmode, count(*) AS line_count, sum(l_extendedprice * (1 - l_discount)) AS revenue
        FROM {{l}} JOIN {{o}} ON l_orderkey = o_orderkey
        WHERE o_totalprice > {price}
        GROUP BY l_shipmode
        ORDER BY l_shipmode"""
    q3_spark, q3_phoenix, q12_spark, q12_phoenix = q3_and_q12()
    # Q3's day is 1995-03-15; Q12's year is from 1994-01-01.
    q3_days = ("1995-03-15", "1995-03-15")
    q12_days = ("1994-01-01", "1995-01-01")
    return [
        (f"join with {FILTERED_ORDERS} orders by o_totalprice", filtered, filtered, FILTERED_JOIN),
        (
            "TPC-H Q3",
            q3_spark % tuple(map(spark_date, q3_days)),
            q3_phoenix % tuple(map(phoenix_date, q3_days)),
            TPCH_JOIN,
        ),
        (
            "TPC-H Q12",
            q12_spark % tuple(map(spark_date, q12_days)),
            q12_phoenix % tuple(map(phoenix_date, q12_days)),
            TPCH_JOIN,
        ),
    ]


def statements(spark_sql, phoenix_sql):
    """The query on each engine's tables: {engine: statement}."""
    return {
        engine: (phoenix_sql if is_phoenix(engine) else spark_sql).format(
            l=table_name(engine, "lineitem"), o=table_name(engine, "orders"), c=table_name(engine, "customer")
        )
        for engine in ENGINES
    }
