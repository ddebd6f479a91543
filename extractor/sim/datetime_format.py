"""Render datetimes under an Oracle datetime format model (NLS_DATE_FORMAT and friends).

Covers the elements NLS formats use in practice: SYYYY YYYY RRRR YY RR MM MON MONTH DD DY
DAY HH24 HH12 HH MI SS FF[1-9] AM PM TZH TZM, punctuation and "quoted text". Month and day
names are English and upper case, as Oracle writes them with NLS_DATE_LANGUAGE=AMERICAN.
A BC moment (``bc=True``: ``moment.year`` counts years before 1 AD) prints its year without
a sign under YYYY and with ``-`` under SYYYY, which prints a space before an AD year
(Oracle's Format Models, "Datetime Format Elements"; a partition bound Oracle writes reads
``TO_DATE(' 2016-01-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS', …)``). Day names and day
numbers of BC moments follow the proleptic Gregorian calendar, not Oracle's Julian one.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache

_MONTHS = ("JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST",
           "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER")  # fmt: skip
_DAYS = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")

_ELEMENT = re.compile(
    r'"[^"]*"|SYYYY|YYYY|RRRR|YY|RR|MONTH|MON|MM|DDD|DD|DAY|DY|HH24|HH12|HH|MI|SS|FF[1-9]?|AM|PM|'
    r"A\.M\.|P\.M\.|TZH|TZM|.",
    re.IGNORECASE,
)

# (moment, nanosecond, fraction digits of the type, offset minutes, BC) -> text
Piece = Callable[[datetime, int, int, int, bool], str]


def format_datetime(
    fmt: str, moment: datetime, *, nanosecond: int = 0, type_digits: int = 6,
    offset_minutes: int = 0, bc: bool = False,
) -> str:  # fmt: skip
    """``moment`` (naive wall-clock time) rendered as ``TO_CHAR(value, fmt)`` would.

    ``FF`` without digits prints ``type_digits`` digits (none for TIMESTAMP(0), which
    leaves a bare dot after the seconds, as LogMiner shows).
    """
    return "".join(
        piece(moment, nanosecond, type_digits, offset_minutes, bc) for piece in _compile(fmt)
    )


@lru_cache(maxsize=64)
def _compile(fmt: str) -> tuple[Piece, ...]:
    return tuple(_piece(match.group(0)) for match in _ELEMENT.finditer(fmt))


def _piece(token: str) -> Piece:
    upper = token.upper()
    fixed = _FIXED.get(upper)
    if fixed is not None:
        return fixed
    if upper.startswith("FF"):
        digits = int(upper[2:]) if len(upper) > 2 else None
        return lambda m, ns, td, off, bc: _fraction(ns, td if digits is None else digits)
    text = token[1:-1] if token.startswith('"') else token
    return lambda m, ns, td, off, bc: text


def _fraction(nanosecond: int, digits: int) -> str:
    return f"{nanosecond:09d}"[:digits]


def _hour12(moment: datetime) -> str:
    return f"{(moment.hour % 12) or 12:02d}"


def _tzh(offset: int) -> str:
    sign = "-" if offset < 0 else "+"
    return f"{sign}{abs(offset) // 60:02d}"


_FIXED: dict[str, Piece] = {
    "SYYYY": lambda m, ns, td, off, bc: ("-" if bc else " ") + f"{m.year:04d}",
    "YYYY": lambda m, ns, td, off, bc: f"{m.year:04d}",
    "RRRR": lambda m, ns, td, off, bc: f"{m.year:04d}",
    "YY": lambda m, ns, td, off, bc: f"{m.year % 100:02d}",
    "RR": lambda m, ns, td, off, bc: f"{m.year % 100:02d}",
    "MM": lambda m, ns, td, off, bc: f"{m.month:02d}",
    "MON": lambda m, ns, td, off, bc: _MONTHS[m.month - 1][:3],
    "MONTH": lambda m, ns, td, off, bc: _MONTHS[m.month - 1].ljust(9),
    "DD": lambda m, ns, td, off, bc: f"{m.day:02d}",
    "DDD": lambda m, ns, td, off, bc: f"{m.timetuple().tm_yday:03d}",
    "DY": lambda m, ns, td, off, bc: _DAYS[m.weekday()][:3],
    "DAY": lambda m, ns, td, off, bc: _DAYS[m.weekday()].ljust(9),
    "HH24": lambda m, ns, td, off, bc: f"{m.hour:02d}",
    "HH12": lambda m, ns, td, off, bc: _hour12(m),
    "HH": lambda m, ns, td, off, bc: _hour12(m),
    "MI": lambda m, ns, td, off, bc: f"{m.minute:02d}",
    "SS": lambda m, ns, td, off, bc: f"{m.second:02d}",
    "AM": lambda m, ns, td, off, bc: "AM" if m.hour < 12 else "PM",
    "PM": lambda m, ns, td, off, bc: "AM" if m.hour < 12 else "PM",
    "A.M.": lambda m, ns, td, off, bc: "A.M." if m.hour < 12 else "P.M.",
    "P.M.": lambda m, ns, td, off, bc: "A.M." if m.hour < 12 else "P.M.",
    "TZH": lambda m, ns, td, off, bc: _tzh(off),
    "TZM": lambda m, ns, td, off, bc: f"{abs(off) % 60:02d}",
}
