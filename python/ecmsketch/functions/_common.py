"""What every wrapper of :mod:`ecmsketch.functions` shares: the argument types and the conversion
of arguments to Columns."""
from __future__ import annotations

import datetime as _dt
from typing import Any, Optional, Union

from pyspark.sql import Column
from pyspark.sql.functions import col, lit

ColumnOrName = Union[Column, str]
Window = Union[None, int, str, _dt.timedelta, Column]
Now = Union[None, int, _dt.datetime, Column]

_COLUMN_TYPES: Optional[tuple] = None


def _is_column(x: Any) -> bool:
    """A Column of classic PySpark or of Spark Connect (on pyspark 3.5 the Connect Column is not a
    subclass of pyspark.sql.Column; on pyspark 4 it is)."""
    global _COLUMN_TYPES
    if _COLUMN_TYPES is None:
        types: list = [Column]
        try:
            from pyspark.sql.connect.column import Column as ConnectColumn
            types.append(ConnectColumn)
        except Exception:  # the Connect client dependencies are not installed
            pass
        _COLUMN_TYPES = tuple(types)
    return isinstance(x, _COLUMN_TYPES)


def _c(x: ColumnOrName) -> Column:
    return x if _is_column(x) else col(x)


def _p(x: Any) -> Column:
    """An option value as a literal (None = the SQL default)."""
    if _is_column(x):
        return x
    return lit(x)


def _v(x: Optional[ColumnOrName]) -> Column:
    return lit(None) if x is None else _c(x)
