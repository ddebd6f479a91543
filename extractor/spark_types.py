"""The one Oracle -> Spark type mapping of the product.

Every value lands losslessly (docs/types.md publishes this table):

| Oracle                                   | Spark            | Python value on the way     |
|------------------------------------------|------------------|-----------------------------|
| NUMBER(p,s), 0 <= s, p <= 38             | DECIMAL(p,s)     | decimal.Decimal             |
| NUMBER(p,s), s < 0, p - s <= 38          | DECIMAL(p-s,0)   | decimal.Decimal             |
| NUMBER(*,s) (precision NULL, scale set)  | DECIMAL(38,s)    | decimal.Decimal             |
| NUMBER (no precision, no scale), FLOAT   | STRING           | str, canonical decimal text |
| other NUMBER that does not fit 38 digits | STRING           | str, canonical decimal text |
| BINARY_FLOAT / BINARY_DOUBLE             | FLOAT / DOUBLE   | float (NaN, +-inf kept)     |
| DATE, TIMESTAMP(n <= 6)                  | TIMESTAMP_NTZ    | datetime.datetime (naive)   |
| TIMESTAMP(n > 6)                         | STRING           | str, ISO 8601, n digits     |
| TIMESTAMP(n <= 6) WITH [LOCAL] TIME ZONE | TIMESTAMP (UTC)  | datetime.datetime (UTC)     |
| TIMESTAMP(n > 6) WITH [LOCAL] TIME ZONE  | STRING           | str, ISO 8601 UTC, n digits |
| INTERVAL YEAR TO MONTH / DAY TO SECOND   | STRING           | str, Oracle interval text   |
| CHAR, NCHAR, VARCHAR2, NVARCHAR2, CLOB,  | STRING           | str                         |
| NCLOB, LONG, ROWID, UROWID               |                  |                             |
| RAW, LONG RAW, BLOB                      | BINARY           | bytes                       |

Plain NUMBER and FLOAT land as STRING because they hold up to 38-40 significant digits
anywhere between 1e-130 and 1e126: any fixed DECIMAL(38,s) would round or overflow
silently (spark issue 56738). ``number_as`` in oracdc.yml chooses DOUBLE or DECIMAL(38,s)
for them instead, knowing what each loses (``ColumnDef.landed_as``, docs/types.md).
"""

from __future__ import annotations

import re

from extractor.dictionary import ColumnDef
from extractor.errors import UnsupportedTypeError

SPARK_MAX_DECIMAL_PRECISION = 38
SPARK_MAX_TIMESTAMP_PRECISION = 6

# Groups: precision, " WITH [LOCAL] TIME ZONE", " LOCAL".
TIMESTAMP_TYPE = re.compile(r"^TIMESTAMP(?:\((\d)\))?( WITH( LOCAL)? TIME ZONE)?$")
STRING_TYPES = frozenset(
    {"CHAR", "NCHAR", "VARCHAR2", "VARCHAR", "NVARCHAR2", "CLOB", "NCLOB", "LONG"}
    | {"ROWID", "UROWID"}
)
BINARY_TYPES = frozenset({"RAW", "LONG RAW", "BLOB"})
DEFAULT_TIMESTAMP_PRECISION = 6


def spark_type(column: ColumnDef) -> str:
    """The Spark SQL type (DDL spelling) a column of this Oracle type lands as."""
    data_type = column.data_type.upper().strip()
    if column.landed_as is not None and is_unbounded_number(column):
        return column.landed_as
    if data_type == "NUMBER":
        return _number_type(column.data_precision, column.data_scale)
    if data_type == "FLOAT":
        return "STRING"
    if data_type == "BINARY_FLOAT":
        return "FLOAT"
    if data_type == "BINARY_DOUBLE":
        return "DOUBLE"
    if data_type == "DATE":
        return "TIMESTAMP_NTZ"
    match = TIMESTAMP_TYPE.match(data_type)
    if match:
        precision = int(match.group(1)) if match.group(1) else DEFAULT_TIMESTAMP_PRECISION
        if precision > SPARK_MAX_TIMESTAMP_PRECISION:
            return "STRING"
        return "TIMESTAMP" if match.group(2) else "TIMESTAMP_NTZ"
    if data_type.startswith("INTERVAL"):
        return "STRING"
    if data_type in STRING_TYPES:
        return "STRING"
    if data_type in BINARY_TYPES:
        return "BINARY"
    raise UnsupportedTypeError(
        f"column {column.name!r}: Oracle type {column.data_type!r} is not replicated"
    )


def _number_type(precision: int | None, scale: int | None) -> str:
    if precision is None and scale is None:
        return "STRING"
    if precision is None:
        precision = SPARK_MAX_DECIMAL_PRECISION
    scale = scale or 0
    if scale < 0:
        precision, scale = precision - scale, 0
    if precision > SPARK_MAX_DECIMAL_PRECISION or scale > precision:
        return "STRING"
    return f"DECIMAL({precision},{scale})"


def is_unbounded_number(column: ColumnDef) -> bool:
    """A NUMBER without precision and scale, or a FLOAT: what ``number_as`` applies to."""
    data_type = column.data_type.upper().strip()
    plain = data_type == "NUMBER" and column.data_precision is None and column.data_scale is None
    return plain or data_type == "FLOAT"


def landed_decimal_scale(column: ColumnDef) -> int | None:
    """The scale s of a column landing as DECIMAL(38,s) by ``number_as``, else None."""
    match = re.fullmatch(r"DECIMAL\(38,(\d+)\)", column.landed_as or "")
    return int(match.group(1)) if match and is_unbounded_number(column) else None
