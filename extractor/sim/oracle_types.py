"""What the simulator needs to know about a column's Oracle type."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

from extractor.dictionary import ColumnDef
from extractor.errors import SimUsageError


class Kind(Enum):
    NUMBER = "NUMBER"
    FLOAT = "FLOAT"
    BINARY_FLOAT = "BINARY_FLOAT"
    BINARY_DOUBLE = "BINARY_DOUBLE"
    CHAR = "CHAR"
    NCHAR = "NCHAR"
    VARCHAR2 = "VARCHAR2"
    NVARCHAR2 = "NVARCHAR2"
    CLOB = "CLOB"
    NCLOB = "NCLOB"
    DATE = "DATE"
    TIMESTAMP = "TIMESTAMP"
    TIMESTAMP_TZ = "TIMESTAMP WITH TIME ZONE"
    TIMESTAMP_LTZ = "TIMESTAMP WITH LOCAL TIME ZONE"
    RAW = "RAW"
    BLOB = "BLOB"


NATIONAL_KINDS = frozenset({Kind.NCHAR, Kind.NVARCHAR2, Kind.NCLOB})
STRING_KINDS = frozenset(
    {Kind.CHAR, Kind.NCHAR, Kind.VARCHAR2, Kind.NVARCHAR2, Kind.CLOB, Kind.NCLOB}
)
LOB_KINDS = frozenset({Kind.CLOB, Kind.NCLOB, Kind.BLOB})
TIMESTAMP_KINDS = frozenset({Kind.TIMESTAMP, Kind.TIMESTAMP_TZ, Kind.TIMESTAMP_LTZ})

_TIMESTAMP = re.compile(r"^TIMESTAMP(?:\((\d)\))?( WITH( LOCAL)? TIME ZONE)?$")
_SIMPLE = {k.value: k for k in Kind if k not in TIMESTAMP_KINDS}
_SIMPLE["VARCHAR"] = Kind.VARCHAR2


@dataclass(frozen=True, slots=True)
class ColumnType:
    """A column's kind plus the size facts that change stored values."""

    kind: Kind
    precision: int | None = None  # NUMBER decimal / FLOAT binary precision, TIMESTAMP digits
    scale: int | None = None
    length: int | None = None  # CHAR / NCHAR blank padding

    @property
    def is_lob(self) -> bool:
        return self.kind in LOB_KINDS


@lru_cache(maxsize=4096)
def column_type(column: ColumnDef) -> ColumnType:
    """Classify a dictionary column; raises SimUsageError for types the simulator lacks."""
    data_type = column.data_type.upper().strip()
    match = _TIMESTAMP.match(data_type)
    if match:
        digits = int(match.group(1)) if match.group(1) else 6
        if match.group(3):
            return ColumnType(Kind.TIMESTAMP_LTZ, precision=digits)
        if match.group(2):
            return ColumnType(Kind.TIMESTAMP_TZ, precision=digits)
        return ColumnType(Kind.TIMESTAMP, precision=digits)
    kind = _SIMPLE.get(data_type)
    if kind is None:
        raise SimUsageError(
            f"column {column.name!r}: the simulator does not model Oracle type {data_type!r}",
            fix="use NUMBER, FLOAT, BINARY_*, (N)CHAR, (N)VARCHAR2, (N)CLOB, DATE, "
            "TIMESTAMP[(n)] [WITH [LOCAL] TIME ZONE], RAW or BLOB",
        )
    if kind is Kind.FLOAT:
        return ColumnType(kind, precision=column.data_precision or 126)
    if kind is Kind.NUMBER:
        return ColumnType(kind, precision=column.data_precision, scale=column.data_scale)
    if kind in (Kind.CHAR, Kind.NCHAR):
        return ColumnType(kind, length=column.data_length or 1)
    return ColumnType(kind)
