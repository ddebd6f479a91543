"""Canonical text forms for Oracle values that land as Spark STRING (see spark_types).

The parser, the snapshot readers and the simulator's truth function all produce these
forms, so that a replica can be compared with its source value for value.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import ROUND_HALF_UP, Context, Decimal

from extractor.errors import NumberChoiceError

# Wide enough for any Oracle NUMBER (up to 40 significant digits, exponents -130..126).
_EXACT = Context(prec=400)


def canonical_decimal_text(value: Decimal) -> str:
    """Exact decimal text without exponent or trailing zeros: ``1.50`` -> ``1.5``,
    ``1E+3`` -> ``1000``, ``-0`` -> ``0``. Used for plain NUMBER and FLOAT."""
    if not value.is_finite():
        raise ValueError(f"not a finite number: {value}")
    if value.is_zero():
        return "0"
    text = format(value.normalize(_EXACT), "f")
    return text


def rounded_to_scale(value: Decimal, scale: int) -> Decimal:
    """``value`` rounded to ``scale`` decimals as Oracle's ``ROUND(n, scale)`` rounds (half
    away from zero), for a column landing as DECIMAL(38,scale) by ``number_as``; ValueError
    when it then has more than 38 digits (more than 38-scale before the point)."""
    if not value.is_finite():
        raise ValueError(f"not a finite number: {value}")
    rounded = value.quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP, context=_EXACT)
    if rounded.copy_abs() >= Decimal(10) ** (38 - scale):
        raise NumberChoiceError(f"{value} does not fit DECIMAL(38,{scale}) (number_as)")
    return rounded


def interval_ym_text(total_months: int) -> str:
    """INTERVAL YEAR TO MONTH as ``[-]Y-MM``: ``-42`` months -> ``-3-06``."""
    sign = "-" if total_months < 0 else ""
    years, months = divmod(abs(total_months), 12)
    return f"{sign}{years}-{months:02d}"


def interval_ds_text(total_nanoseconds: int) -> str:
    """INTERVAL DAY TO SECOND as ``[-]D HH:MM:SS[.fraction]`` with the fraction's trailing
    zeros removed: ``-(1 day 2:03:04.56)`` -> ``-1 02:03:04.56``."""
    sign = "-" if total_nanoseconds < 0 else ""
    seconds, nanos = divmod(abs(total_nanoseconds), 1_000_000_000)
    days, seconds = divmod(seconds, 86_400)
    hours, seconds = divmod(seconds, 3_600)
    minutes, seconds = divmod(seconds, 60)
    fraction = f".{nanos:09d}".rstrip("0") if nanos else ""
    return f"{sign}{days} {hours:02d}:{minutes:02d}:{seconds:02d}{fraction}"


def timestamp_text(moment: datetime, nanosecond: int, precision: int) -> str:
    """TIMESTAMP(n > 6) as ``YYYY-MM-DD HH:MM:SS.<n digits>``; an aware ``moment`` is
    converted to UTC and gets the suffix `` +00:00``. ``moment.microsecond`` is ignored:
    ``nanosecond`` (0..999,999,999) carries the whole fraction."""
    if not 0 <= nanosecond < 1_000_000_000:
        raise ValueError(f"nanosecond out of range: {nanosecond}")
    suffix = ""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
        suffix = " +00:00"
    fraction = f"{nanosecond:09d}"[:precision]
    dot = "." if precision > 0 else ""
    return f"{moment:%Y-%m-%d %H:%M:%S}{dot}{fraction}{suffix}"
