"""Values as the simulated Oracle stores them, and as the truth function reports them.

A value given to ``insert``/``update`` is coerced the way Oracle would store it (NUMBER(p,s)
rounded half away from zero to s digits, '' as NULL, CHAR(n) blank-padded, DATE without
fraction, TIMESTAMP(n) rounded to n digits). The stored form keeps what SQL_REDO needs
(e.g. the time zone offset of a TIMESTAMP WITH TIME ZONE value); :func:`truth_value` turns
it into the Python representation ``extractor.spark_types`` fixes.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from extractor.dictionary import ColumnDef
from extractor.errors import SimUsageError
from extractor.sim.oracle_errors import raise_oracle_error
from extractor.sim.oracle_types import STRING_KINDS, ColumnType, Kind, column_type
from extractor.spark_types import SPARK_MAX_TIMESTAMP_PRECISION, spark_type
from extractor.values import canonical_decimal_text, timestamp_text

PLAIN_NUMBER_DIGITS = 38  # significant digits kept by a NUMBER without precision


@dataclass(frozen=True, slots=True)
class OracleTimestamp:
    """A TIMESTAMP value with nanoseconds.

    ``local`` is the wall-clock time (naive, microsecond 0) at ``offset_minutes`` east of
    UTC; ``offset_minutes`` is None for a plain TIMESTAMP. A test may pass one to
    ``insert`` to set nanoseconds a ``datetime`` cannot hold.
    """

    local: datetime
    nanosecond: int = 0
    offset_minutes: int | None = None

    def utc(self) -> datetime:
        """The UTC wall-clock time (naive); for a plain TIMESTAMP, ``local`` itself."""
        return self.local - timedelta(minutes=self.offset_minutes or 0)


@dataclass(frozen=True, slots=True)
class BcDate:
    """A DATE before 1 AD, which no ``datetime`` holds: ``moment.year`` counts the years
    before 1 AD (4712 for ``TO_DATE('1', 'J')``, Oracle's earliest DATE). A test passes one
    to ``insert``/``update``; SQL_REDO writes its year with ``-`` under SYYYY and without a
    sign under YYYY. ``truth`` shows it as it is; a DB-API fetch of it raises python-oracledb's
    ``ValueError`` (``year -4712 is out of range``)."""

    moment: datetime


StoredValue = Decimal | float | str | datetime | OracleTimestamp | BcDate | bytes | None


def coerce_value(column: ColumnDef, value: object) -> StoredValue:
    """The value Oracle stores when ``value`` is written to ``column``."""
    if value is None:
        return None
    ctype = column_type(column)
    kind = ctype.kind
    try:
        if kind in (Kind.NUMBER, Kind.FLOAT):
            return _coerce_number(column, ctype, value)
        if kind in (Kind.BINARY_FLOAT, Kind.BINARY_DOUBLE):
            return _coerce_binary(kind, value)
        if kind in STRING_KINDS:
            return _coerce_string(column, ctype, value)
        if kind is Kind.DATE:
            return _coerce_date(value)
        if kind in (Kind.TIMESTAMP, Kind.TIMESTAMP_TZ, Kind.TIMESTAMP_LTZ):
            return _coerce_timestamp(ctype, value)
        return _coerce_bytes(value)
    except (TypeError, ValueError, InvalidOperation) as bad:
        raise SimUsageError(
            f"column {column.name!r} ({column.data_type}): cannot store {value!r}: {bad}"
        ) from None


def truth_value(column: ColumnDef, stored: StoredValue) -> object:
    """The Python value per ``spark_types`` for a stored value."""
    if stored is None:
        return None
    if isinstance(stored, Decimal):
        if spark_type(column) == "STRING":
            return canonical_decimal_text(stored)
        return stored
    if isinstance(stored, OracleTimestamp):
        return _timestamp_truth(column_type(column), stored)
    if isinstance(stored, BcDate):
        return stored  # no Python or Spark value: a fetch of it fails (dbapi), as the driver's
    return stored


def _coerce_number(column: ColumnDef, ctype: ColumnType, value: object) -> Decimal:
    if isinstance(value, bool):
        raise TypeError("a bool is not a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("NUMBER cannot hold NaN or infinity")
        number = Decimal(repr(value))
    elif isinstance(value, int | Decimal | str):
        number = Decimal(value)
    else:
        raise TypeError(f"{type(value).__name__} is not a number")
    if not number.is_finite():
        raise ValueError("NUMBER cannot hold NaN or infinity")
    if ctype.kind is Kind.FLOAT:
        digits = math.ceil((ctype.precision or 126) * 0.30103)
        return _round_significant(number, digits)
    if ctype.precision is None and ctype.scale is None:
        return _round_significant(number, PLAIN_NUMBER_DIGITS)
    precision = ctype.precision if ctype.precision is not None else PLAIN_NUMBER_DIGITS
    scale = ctype.scale or 0
    rounded = number.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    if not rounded.is_zero() and rounded.adjusted() + 1 > precision - scale:
        raise_oracle_error(
            1438, f"value larger than specified precision allowed for this column ({column.name})"
        )
    return rounded


def _round_significant(number: Decimal, digits: int) -> Decimal:
    if number.is_zero():
        return Decimal(0)
    exponent = number.adjusted() - digits + 1
    if number.as_tuple().exponent >= exponent:  # type: ignore[operator]
        return number
    return number.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP)


def _coerce_binary(kind: Kind, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal | str):
        raise TypeError(f"{type(value).__name__} is not a number")
    number = float(value)
    if kind is Kind.BINARY_FLOAT:
        number = float(struct.unpack("f", struct.pack("f", number))[0])
    return number


def _coerce_string(column: ColumnDef, ctype: ColumnType, value: object) -> str | None:
    if not isinstance(value, str):
        raise TypeError(f"{type(value).__name__} is not text")
    if value == "":
        return None  # Oracle stores '' as NULL
    if ctype.kind in (Kind.CHAR, Kind.NCHAR):
        length = ctype.length or 1
        if len(value) > length:
            raise_oracle_error(
                12899,
                f'value too large for column "{column.name}" (actual: {len(value)}, '
                f"maximum: {length})",
            )
        return value.ljust(length)
    return value


def _coerce_date(value: object) -> datetime | BcDate:
    if isinstance(value, BcDate):
        return BcDate(value.moment.replace(microsecond=0))
    if isinstance(value, OracleTimestamp):
        return value.utc() if value.offset_minutes is not None else value.local
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.replace(microsecond=0)  # a DATE keeps whole seconds (truncated)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    raise TypeError(f"{type(value).__name__} is not a date")


def _coerce_timestamp(ctype: ColumnType, value: object) -> OracleTimestamp:
    if isinstance(value, OracleTimestamp):
        local, nanos, offset = (
            value.local.replace(microsecond=0),
            value.nanosecond,
            value.offset_minutes,
        )
    elif isinstance(value, datetime):
        local, nanos = value.replace(microsecond=0, tzinfo=None), value.microsecond * 1000
        delta = value.utcoffset()
        offset = None if delta is None else int(delta.total_seconds() // 60)
    elif isinstance(value, date):
        local, nanos, offset = datetime(value.year, value.month, value.day), 0, None
    else:
        raise TypeError(f"{type(value).__name__} is not a timestamp")
    if not 0 <= nanos < 1_000_000_000:
        raise ValueError(f"nanosecond out of range: {nanos}")
    local, nanos = _round_fraction(local, nanos, ctype.precision or 0)
    if ctype.kind is Kind.TIMESTAMP:
        # a plain TIMESTAMP keeps the wall-clock time and drops any offset
        return OracleTimestamp(local, nanos, None)
    if offset is None:
        offset = 0  # a naive value is taken in the session time zone (UTC here)
    if ctype.kind is Kind.TIMESTAMP_LTZ:
        # normalized to the database time zone (UTC); rendered in the session zone
        return OracleTimestamp(local - timedelta(minutes=offset), nanos, 0)
    return OracleTimestamp(local, nanos, offset)


def _round_fraction(local: datetime, nanos: int, digits: int) -> tuple[datetime, int]:
    unit = 10 ** (9 - digits)
    rounded = (nanos + unit // 2) // unit * unit  # half up, as Oracle rounds fractions
    if rounded >= 1_000_000_000:
        return local + timedelta(seconds=1), rounded - 1_000_000_000
    return local, rounded


def _coerce_bytes(value: object) -> bytes | None:
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
    elif isinstance(value, str):
        data = bytes.fromhex(value)
    else:
        raise TypeError(f"{type(value).__name__} is not binary")
    return data or None  # an empty RAW is NULL


def _timestamp_truth(ctype: ColumnType, stored: OracleTimestamp) -> object:
    digits = ctype.precision if ctype.precision is not None else 6
    if ctype.kind is Kind.TIMESTAMP:
        if digits > SPARK_MAX_TIMESTAMP_PRECISION:
            return timestamp_text(stored.local, stored.nanosecond, digits)
        return stored.local.replace(microsecond=stored.nanosecond // 1000)
    utc = stored.utc().replace(tzinfo=UTC)
    if digits > SPARK_MAX_TIMESTAMP_PRECISION:
        return timestamp_text(utc, stored.nanosecond, digits)
    return utc.replace(microsecond=stored.nanosecond // 1000)
