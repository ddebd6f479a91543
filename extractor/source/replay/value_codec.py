"""Snapshot values in a bundle (``docs/replay-bundle.md``, value encoding) <-> the ``spark_types``
Python representation.

NUMBER / FLOAT: JSON string of the exact decimal; BINARY_FLOAT / DOUBLE: JSON number or
``"NaN"``, ``"Infinity"``, ``"-Infinity"``; character types: string; DATE / TIMESTAMP: ISO
8601 without offset; WITH TIME ZONE: ISO 8601 with offset; RAW / BLOB: lower-case hex;
NULL: ``null``. INTERVAL values (not fixed by the contract) travel as Oracle interval text.
"""

from __future__ import annotations

import math
import re
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal, InvalidOperation
from typing import Any

from extractor.dictionary import ColumnDef
from extractor.errors import ValueCodecError
from extractor.spark_types import landed_decimal_scale, spark_type
from extractor.values import canonical_decimal_text, rounded_to_scale, timestamp_text

_ISO = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?"
    r"\s?(Z|[+-]\d{2}:\d{2})?$"
)
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_TIMESTAMP_DIGITS = re.compile(r"^TIMESTAMP\((\d)\)")


def encode_value(column: ColumnDef, value: object) -> Any:
    """The bundle JSON value of a ``spark_types`` Python value."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            return value.astimezone(UTC).isoformat()
        return value.isoformat()
    if isinstance(value, bytes | bytearray):
        return bytes(value).hex()
    if isinstance(value, str) and _kind(column) in ("TIMESTAMP", "TIMESTAMP_TZ"):
        return _timestamp_text_to_iso(value)
    if isinstance(value, str | int | bool):
        return value
    raise ValueCodecError(
        f"column {column.name} ({column.data_type}): {value!r} has no bundle encoding",
        fix="a bundle's snapshot holds what python-oracledb fetches (no DATE or TIMESTAMP "
        "before 1 AD, docs/types.md): correct the value or leave the table's snapshot out",
    )


def decode_value(column: ColumnDef, raw: Any) -> object:
    """The ``spark_types`` Python value of a bundle JSON value; ValueCodecError if malformed."""
    if raw is None:
        return None
    kind = _kind(column)
    spark = spark_type(column)
    if kind == "NUMBER":
        number = _decimal(raw)
        scale = landed_decimal_scale(column)
        if scale is not None:  # number_as decimal(38,s)
            return rounded_to_scale(number, scale)
        if spark == "DOUBLE":  # number_as double
            return float(number)
        return canonical_decimal_text(number) if spark == "STRING" else number
    if kind == "BINARY":
        return _float(raw)
    if kind in ("DATE", "TIMESTAMP", "TIMESTAMP_TZ"):
        return _datetime_value(column, kind, spark, raw)
    if kind == "BYTES":
        if not isinstance(raw, str):
            raise ValueCodecError(f"expected a hex string, got {raw!r}")
        try:
            return bytes.fromhex(raw)
        except ValueError:
            raise ValueCodecError(f"{raw!r} is not hex") from None
    if not isinstance(raw, str):
        raise ValueCodecError(f"expected a string, got {raw!r}")
    return raw


def _kind(column: ColumnDef) -> str:
    data_type = column.data_type.upper().strip()
    if data_type in ("NUMBER", "FLOAT"):
        return "NUMBER"
    if data_type in ("BINARY_FLOAT", "BINARY_DOUBLE"):
        return "BINARY"
    if data_type == "DATE":
        return "DATE"
    if data_type.startswith("TIMESTAMP"):
        return "TIMESTAMP_TZ" if data_type.endswith("TIME ZONE") else "TIMESTAMP"
    if data_type in ("RAW", "LONG RAW", "BLOB"):
        return "BYTES"
    return "TEXT"


def _decimal(raw: Any) -> Decimal:
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        raise ValueCodecError(f"a NUMBER must be a JSON string of its decimal text, got {raw!r}")
    try:
        number = Decimal(str(raw).strip())
    except InvalidOperation:
        raise ValueCodecError(f"{raw!r} is not a decimal number") from None
    if not number.is_finite():
        raise ValueCodecError(f"{raw!r} is not a finite number")
    return number


def _float(raw: Any) -> float:
    if isinstance(raw, str) and raw in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[raw]
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        raise ValueCodecError(f"expected a JSON number, NaN, Infinity or -Infinity, got {raw!r}")
    return float(raw)


def _datetime_value(column: ColumnDef, kind: str, spark: str, raw: Any) -> object:
    if not isinstance(raw, str):
        raise ValueCodecError(f"expected an ISO 8601 string, got {raw!r}")
    match = _ISO.match(raw.strip())
    if not match:
        raise ValueCodecError(f"{raw!r} is not ISO 8601")
    year, month, day, hour, minute, second, fraction, offset = match.groups()
    nanos = int((fraction or "").ljust(9, "0"))
    zone = None
    if kind == "TIMESTAMP_TZ":
        if offset is None:
            raise ValueCodecError(f"{raw!r} lacks the offset a WITH TIME ZONE value needs")
        zone = UTC if offset == "Z" else _offset(offset)
    elif offset is not None:
        raise ValueCodecError(f"{raw!r} has an offset but {column.data_type} has no time zone")
    moment = datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0),
        tzinfo=zone,
    )  # fmt: skip
    if spark == "STRING":
        digits_match = _TIMESTAMP_DIGITS.match(column.data_type.upper())
        digits = int(digits_match.group(1)) if digits_match else 6
        return timestamp_text(moment, nanos, digits)
    moment = moment.replace(microsecond=nanos // 1000)
    return moment.astimezone(UTC) if zone is not None else moment


def _offset(text: str) -> timezone:
    sign = -1 if text[0] == "-" else 1
    hours, minutes = text[1:].split(":")
    return timezone(sign * timedelta(hours=int(hours), minutes=int(minutes)))


def _timestamp_text_to_iso(text: str) -> str:
    """``2024-01-02 03:04:05.123456789 +00:00`` -> ``2024-01-02T03:04:05.123456789+00:00``."""
    stamp, _, zone = text.partition(" +")
    iso = stamp.replace(" ", "T", 1)
    return f"{iso}+{zone}" if zone else iso
