"""Reading datetime text under an Oracle datetime format model (NLS_DATE_FORMAT, ...).

Supported elements: SYYYY/YYYY, YYY, YY, Y, RRRR, RR, MM, MON, MONTH, DD, DDD is not,
HH24, HH/HH12 with AM/PM (A.M./P.M.), MI, SS, FF and FF1-FF9, TZH, TZM, TZR, TZD (read and
ignored), DY/DAY (read and ignored), X (radix), FM/FX (ignored), quoted text and
punctuation. The time-zone part of the text is optional: TIMESTAMP WITH LOCAL TIME ZONE
values may come without an offset (then ``ParsedDatetime.tzinfo`` is None).

Two-digit years follow Oracle's rules (Datetime Format Elements, "RR"): YY takes the
current century; RR maps 00-49 and 50-99 to the century nearest the current year.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from extractor.errors import DatetimeFormatError

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_MONTH_NAMES = (
    "JANUARY",
    "FEBRUARY",
    "MARCH",
    "APRIL",
    "MAY",
    "JUNE",
    "JULY",
    "AUGUST",
    "SEPTEMBER",
    "OCTOBER",
    "NOVEMBER",
    "DECEMBER",
)


@dataclass(frozen=True, slots=True)
class ParsedDatetime:
    """A datetime read from text. ``nanosecond`` carries the whole fraction (0..10^9-1)."""

    year: int
    month: int
    day: int
    hour: int
    minute: int
    second: int
    nanosecond: int
    tzinfo: tzinfo | None

    def to_datetime(self) -> datetime:
        """The moment, truncated to microseconds (callers check ``nanosecond`` first)."""
        return datetime(
            self.year,
            self.month,
            self.day,
            self.hour,
            self.minute,
            self.second,
            self.nanosecond // 1000,
            tzinfo=self.tzinfo,
        )


# (format element, regex for its text, group name); longest elements first.
_ELEMENTS: tuple[tuple[str, str, str], ...] = (
    ("SYYYY", r"[+-]?\d{1,4}", "year"),
    ("YYYY", r"\d{1,4}", "year"),
    ("RRRR", r"\d{2,4}", "rr"),
    ("MONTH", r"[A-Za-z]+\s*", "month_name"),
    ("HH24", r"\d{1,2}", "hour24"),
    ("HH12", r"\d{1,2}", "hour12"),
    ("A.M.", r"[AaPp]\.[Mm]\.", "meridian"),
    ("P.M.", r"[AaPp]\.[Mm]\.", "meridian"),
    ("YYY", r"\d{3}", "yyy"),
    ("MON", r"[A-Za-z]{3}", "month_abbrev"),
    ("DAY", r"[A-Za-z]+\s*", ""),
    ("TZH", r"[+-]?\d{1,2}", "tzh"),
    ("TZM", r"\d{2}", "tzm"),
    ("TZR", r"[A-Za-z][\w/+\-]*|[+-]\d{1,2}:\d{2}", "tzr"),
    ("TZD", r"[A-Za-z]{0,6}", ""),
    ("FF", r"\d{0,9}", "fraction"),
    ("YY", r"\d{2}", "yy"),
    ("RR", r"\d{2,4}", "rr"),
    ("MM", r"\d{1,2}", "month"),
    ("DD", r"\d{1,2}", "day"),
    ("DY", r"[A-Za-z]{2,3}", ""),
    ("HH", r"\d{1,2}", "hour12"),
    ("MI", r"\d{1,2}", "minute"),
    ("SS", r"\d{1,2}", "second"),
    ("AM", r"[AaPp]\.?[Mm]\.?", "meridian"),
    ("PM", r"[AaPp]\.?[Mm]\.?", "meridian"),
    ("FM", "", ""),
    ("FX", "", ""),
    ("X", r"[.,]", ""),  # the radix character: NLS_NUMERIC_CHARACTERS' first
    ("Y", r"\d", "y"),
)
_TZ_ELEMENTS = frozenset({"TZH", "TZR"})


@dataclass(frozen=True)
class DatetimeFormat:
    """A compiled format model: one regular expression with a named group per element."""

    model: str
    pattern: re.Pattern[str]

    def parse(self, text: str, *, current_year: int | None = None) -> ParsedDatetime:
        match = self.pattern.fullmatch(text)
        if match is None:
            raise DatetimeFormatError(f"{text!r} does not match the format {self.model!r}")
        fields = {k: v for k, v in match.groupdict().items() if v is not None}
        try:
            return ParsedDatetime(
                year=_year(fields, current_year),
                month=_month(fields),
                day=int(fields.get("day", "1")),
                hour=_hour(fields),
                minute=int(fields.get("minute", "0")),
                second=int(fields.get("second", "0")),
                nanosecond=int((fields.get("fraction", "") + "000000000")[:9]),
                tzinfo=_zone(fields),
            )
        except (KeyError, ValueError) as error:
            raise DatetimeFormatError(f"{text!r} under {self.model!r}: {error}") from None


def parse_datetime(text: str, model: str, *, current_year: int | None = None) -> ParsedDatetime:
    """Read ``text`` written under the Oracle format ``model``."""
    return compile_format(model).parse(text.strip(), current_year=current_year)


@lru_cache(maxsize=64)
def compile_format(model: str) -> DatetimeFormat:
    parts: list[str] = []
    used: set[str] = set()
    tz_start: int | None = None
    separator_start: int | None = None
    i = 0
    upper = model.upper()
    while i < len(model):
        ch = model[i]
        if ch == '"':
            close = model.find('"', i + 1)
            if close == -1:
                raise DatetimeFormatError(f"unterminated quoted text in format {model!r}")
            parts.append(re.escape(model[i + 1 : close]))
            i = close + 1
            continue
        if not ch.isalnum():
            if separator_start is None:
                separator_start = len(parts)
            parts.append(r"\s*" if ch.isspace() else re.escape(ch))
            i += 1
            continue
        element = _element_at(upper, i, model)
        name, regex, group = element
        if name in _TZ_ELEMENTS and tz_start is None:
            tz_start = separator_start if separator_start is not None else len(parts)
        separator_start = None
        if name == "FF" or (name.startswith("FF") and len(name) == 3):
            group = "fraction"
        if group and group in used:
            parts.append(f"(?:{regex})")
        elif group:
            used.add(group)
            parts.append(f"(?P<{group}>{regex})")
        else:
            parts.append(f"(?:{regex})")
        i += len(name)
    if tz_start is not None:
        parts = [*parts[:tz_start], "(?:", *parts[tz_start:], ")?"]
    return DatetimeFormat(model, re.compile("".join(parts)))


def format_elements(model: str) -> tuple[str, ...]:
    """The format elements of ``model``, upper case, in order (quoted text and punctuation
    left out). DatetimeFormatError for an element the reader does not support."""
    elements: list[str] = []
    upper = model.upper()
    i = 0
    while i < len(model):
        if model[i] == '"':
            close = model.find('"', i + 1)
            if close == -1:
                raise DatetimeFormatError(f"unterminated quoted text in format {model!r}")
            i = close + 1
        elif not model[i].isalnum():
            i += 1
        else:
            name = _element_at(upper, i, model)[0]
            elements.append(name)
            i += len(name)
    return tuple(elements)


def _element_at(upper: str, i: int, model: str) -> tuple[str, str, str]:
    if upper.startswith("FF", i):
        digit = upper[i + 2 : i + 3]
        if digit.isdigit() and digit != "0":
            return (f"FF{digit}", r"\d{0,9}", "fraction")
    for element in _ELEMENTS:
        if upper.startswith(element[0], i):
            return element
    raise DatetimeFormatError(f"format element at {model[i:]!r} of {model!r} is not supported")


def _year(fields: dict[str, str], current_year: int | None) -> int:
    if "year" in fields:
        year = int(fields["year"])
        if year < 1:  # SYYYY's sign: a BC date, which no Python or Spark date holds
            raise ValueError(f"year {year} is before 1 AD, where Spark dates and timestamps end")
        return year
    year_now = current_year if current_year is not None else date.today().year
    if "rr" in fields:
        text = fields["rr"]
        return int(text) if len(text) > 2 else _rr_year(int(text), year_now)
    century = year_now - year_now % 100
    if "yy" in fields:
        return century + int(fields["yy"])
    if "yyy" in fields:
        return year_now - year_now % 1000 + int(fields["yyy"])
    if "y" in fields:
        return year_now - year_now % 10 + int(fields["y"])
    return year_now


def _rr_year(two_digits: int, year_now: int) -> int:
    century, now_digits = divmod(year_now, 100)
    if two_digits < 50:
        return (century + (1 if now_digits >= 50 else 0)) * 100 + two_digits
    return (century - (1 if now_digits < 50 else 0)) * 100 + two_digits


def _month(fields: dict[str, str]) -> int:
    if "month" in fields:
        return int(fields["month"])
    if "month_abbrev" in fields:
        return _MONTHS.index(fields["month_abbrev"].upper()) + 1
    if "month_name" in fields:
        return _MONTH_NAMES.index(fields["month_name"].strip().upper()) + 1
    return date.today().month


def _hour(fields: dict[str, str]) -> int:
    if "hour24" in fields:
        return int(fields["hour24"])
    if "hour12" not in fields:
        return 0
    hour = int(fields["hour12"])
    if not 1 <= hour <= 12:
        raise ValueError(f"hour {hour} is not a 12-hour clock hour")
    afternoon = fields.get("meridian", "AM")[:1].upper() == "P"
    return hour % 12 + (12 if afternoon else 0)


def _zone(fields: dict[str, str]) -> tzinfo | None:
    if "tzh" in fields:
        hours = int(fields["tzh"])
        minutes = int(fields.get("tzm", "0"))
        sign = -1 if fields["tzh"].startswith("-") else 1
        return timezone(sign * timedelta(hours=abs(hours), minutes=minutes))
    if "tzr" in fields:
        return zone_from_text(fields["tzr"])
    return None


def zone_from_text(text: str) -> tzinfo:
    """A session TIME_ZONE or TZR value: ``+01:00``, ``-05:30``, ``00:00``, ``UTC``,
    or a region name such as ``Europe/Paris``."""
    offset = _OFFSET.fullmatch(text.strip())
    if offset:
        sign = -1 if offset.group(1) == "-" else 1
        delta = timedelta(hours=int(offset.group(2)), minutes=int(offset.group(3)))
        return timezone(sign * delta)
    try:
        return ZoneInfo(text.strip())
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {text!r}") from None


_OFFSET = re.compile(r"([+-]?)(\d{1,2}):(\d{2})")
