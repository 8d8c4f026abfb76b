"""The SQL functions document themselves as Spark's built-ins do: `DESCRIBE FUNCTION EXTENDED f` shows
the usage, the arguments with their defaults, examples, the release and (in the registry) the group;
every example runs as written and prints what it says. docs/reference/sql.md is generated from the
same specs (docs/gen_sql_reference.py) and must match them."""
from __future__ import annotations

import math
import os
import re
import sys
from decimal import Decimal

import pytest
from pyspark.sql import Row

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "docs"))
import gen_sql_reference  # noqa: E402

pytestmark = pytest.mark.matrix

#: Spark's function groups (ExpressionInfo); ours use two of them
SPARK_GROUPS = {"agg_funcs", "misc_funcs"}


def table(spark):
    """(name, [param names]) of every function of the SQL function table."""
    fns = spark._jvm.ecmsketch.spark.SqlFunctions.all()
    out = []
    for i in range(fns.size()):
        f = fns.apply(i)
        ps = f.params()
        out.append((f.name(), [ps.apply(j).name() for j in range(ps.size())]))
    return out


def describe(spark, name):
    """Usage and extended usage of DESCRIBE FUNCTION EXTENDED, as printed."""
    rows = [r[0] for r in spark.sql(f"DESCRIBE FUNCTION EXTENDED {name}").collect()]
    usage = next(r for r in rows if r.startswith("Usage:"))
    extended = next(r for r in rows if r.startswith("Extended Usage:"))
    return usage, extended


def parse_examples(extended):
    """[(sql, [result lines])] of the Examples section: '> SELECT ...;' then the lines 7 spaces in."""
    m = re.search(r"\n    Examples:\n(.*?)\n  \n", extended, re.S)
    assert m, f"no Examples section in {extended!r}"
    out = []
    for line in m.group(1).split("\n"):
        if line.startswith("      > "):
            out.append((line[len("      > "):], []))
        else:
            assert line.startswith("       ") and out, f"malformed example line {line!r}"
            out[-1][1].append(line[len("       "):])
    return out


def java_double(v):
    """A double as Java (and so Spark's examples) prints it: plain in [1e-3, 1e7), else d.dddE±n."""
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    if v == 0 or 1e-3 <= abs(v) < 1e7:
        return repr(float(v))
    sign, digits, exp = Decimal(repr(v)).normalize().as_tuple()
    digits = "".join(map(str, digits))
    return f"{'-' if sign else ''}{digits[0]}.{digits[1:] or '0'}E{len(digits) - 1 + exp}"


def show(v, nested=False):
    """A value as Spark's examples show it (HiveResult): NULL, arrays [a,b], structs {"f":v}."""
    if v is None:
        return "null" if nested else "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return java_double(v)
    if isinstance(v, str):
        return '"' + v.replace('"', '\\"') + '"' if nested else v
    if isinstance(v, Row):
        return "{" + ",".join(f'"{k}":{show(x, True)}' for k, x in v.asDict(recursive=False).items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(show(x, True) for x in v) + "]"
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).decode("latin-1")
    return str(v)


def test_every_function_runs_its_examples(spark):
    seen = 0
    for name, _ in table(spark):
        _, extended = describe(spark, name)
        examples = parse_examples(extended)
        assert examples, name
        for sql, expected in examples:
            assert sql.endswith(";") and name in sql, (name, sql)
            rows = spark.sql(sql[:-1]).collect()
            got = ["\t".join(show(v) for v in r) for r in rows]
            assert got == expected, f"{name}: {sql}\n  printed {got}\n  the example says {expected}"
            seen += 1
    assert seen >= 35


WINDOWED = {"quantile_agg", "quantile_merge", "top_k_agg", "top_k_merge"}


def test_usage_arguments_since_and_group(spark):
    jvm = spark._jvm
    catalog = spark._jsparkSession.sessionState().catalog()
    for name, params in table(spark):
        usage, extended = describe(spark, name)
        assert name in usage and "_FUNC_" not in usage, usage
        args = re.search(r"\n    Arguments:\n(.*?)\n  \n", extended, re.S)
        assert args, f"{name}: no Arguments section"
        listed = re.findall(r"^      \* (\w+) - ", args.group(1), re.M)
        assert listed == params, (name, listed, params)
        for p in params:
            assert re.search(rf"\b{p}\b", usage), f"{name}: usage does not mention {p}"
        # the release that added the function: 0.1.0, or 0.3.0 for the windowed quantile and top-k sketches
        since = "0.3.0" if name in WINDOWED else "0.1.0"
        assert re.search(rf"\n    Since: {re.escape(since)}\n", extended), f"{name}: {extended!r}"
        info = catalog.lookupFunctionInfo(jvm.org.apache.spark.sql.catalyst.FunctionIdentifier.apply(name))
        assert info.getGroup() in SPARK_GROUPS and info.getSince() == since, name
        assert info.getGroup() == ("agg_funcs" if name.endswith(("_agg", "_merge")) else "misc_funcs"), name


def test_sql_reference_is_up_to_date(spark):
    """docs/reference/sql.md is what docs/gen_sql_reference.py writes from the specs."""
    want = gen_sql_reference.render(gen_sql_reference.specs(spark))
    path = os.path.join(ROOT, "docs", "reference", "sql.md")
    with open(path, encoding="utf-8") as f:
        have = f.read()
    assert have == want, "docs/reference/sql.md is out of date: run python docs/gen_sql_reference.py"
