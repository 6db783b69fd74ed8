# Copyright 2026 The spark-hbase-sql developers
# SPDX-License-Identifier: Apache-2.0

"""Two engines' answers compared: numbers as Decimal to the precision of the less precise, dates as ISO days."""

from decimal import Decimal


def comparable(value):
    """Numbers as Decimal (the engines type averages differently), dates as ISO days, the rest as it is."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float, Decimal)):
        return Decimal(str(value)) if isinstance(value, float) else Decimal(value)
    if hasattr(value, "isoformat"):
        return value.isoformat()
    return value


def sort_key(row):
    return tuple((0, float(v), "") if isinstance(v, Decimal) else (1, 0.0, str(v)) for v in row)


def same_answer(ours, theirs):
    """Row for row after sorting, numbers to the precision of the less precise of the two: Phoenix cuts an
    average of DECIMAL(15,2) to 4 digits (25.5751), Spark rounds it to 6 (25.575155)."""
    if len(ours) != len(theirs):
        return False
    for a, b in zip(sorted(ours, key=sort_key), sorted(theirs, key=sort_key)):
        for x, y in zip(a, b):
            if isinstance(x, Decimal) and isinstance(y, Decimal):
                digits = max(0, min(-x.as_tuple().exponent, -y.as_tuple().exponent, 12))
                if abs(x - y) >= Decimal(1).scaleb(-digits):
                    return False
            elif x != y:
                return False
    return True
