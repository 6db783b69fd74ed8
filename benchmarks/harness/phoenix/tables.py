# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Phoenix's tables as the benchmarks create them: our columns in Phoenix's types, pre-split like ours."""

PHOENIX_TYPES = {"BIGINT": "BIGINT", "INT": "INTEGER", "STRING": "VARCHAR", "DATE": "DATE"}


def phoenix_type(spark_type):
    return spark_type if spark_type.startswith("DECIMAL") else PHOENIX_TYPES[spark_type]


def create_table(phoenix, name, columns, key, splits, family, properties=None):
    """A Phoenix table of these (name, Spark type, cell) columns, with the HBase `family` settings ({name: value})
    and table `properties` besides, split at `splits` (values of a BIGINT leading key)."""
    cols = ", ".join(f"{c} {phoenix_type(t)}{' NOT NULL' if c in key else ''}" for c, t, _ in columns)
    options = ", ".join(f"{k}='{v}'" for k, v in family.items())
    options += "".join(f", {k}={v}" for k, v in (properties or {}).items())
    phoenix.execute(
        f"CREATE TABLE {name} ({cols}, CONSTRAINT pk PRIMARY KEY ({', '.join(key)})) "
        # A split point is encoded as its literal's type: a small number would be a 4-byte INTEGER key.
        f"{options} SPLIT ON ({', '.join(f'CAST({s} AS BIGINT)' for s in splits)})"
    )
