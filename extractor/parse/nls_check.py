"""Which session NLS formats would make SQL_REDO lose information, checked when the
configuration is read: a value printed without its century, its time of day, some of its
fraction digits or its offset would be read back as another value, and nothing in the text
would tell. Those are refused; an unsigned year (BC dates read as AD) and region names
(the hour a clock goes back is ambiguous) are warned about (docs/types.md, "NLS settings")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from extractor.errors import DatetimeFormatError
from extractor.nls import NlsSettings
from extractor.parse.oracle_datetime_format import format_elements

_OFFSET = re.compile(r"[+-]?\d{1,2}:\d{2}")
_NO_DST = frozenset({"UTC", "GMT", "Z"})  # region names without a clock change
_MERIDIANS = frozenset({"AM", "PM", "A.M.", "P.M."})
_FULL_FRACTIONS = frozenset({"FF", "FF9"})


@dataclass(frozen=True)
class NlsFindings:
    """Why the formats lose information (``refused``) or may (``warned``)."""

    refused: tuple[str, ...]
    warned: tuple[str, ...]


def check_nls(nls: NlsSettings) -> NlsFindings:
    refused: list[str] = []
    warned: list[str] = []
    formats = (
        ("NLS_DATE_FORMAT", nls.date_format, False, False),
        ("NLS_TIMESTAMP_FORMAT", nls.timestamp_format, True, False),
        ("NLS_TIMESTAMP_TZ_FORMAT", nls.timestamp_tz_format, True, True),
    )
    for name, model, fraction, zone in formats:
        try:
            elements = set(format_elements(model))
        except DatetimeFormatError as error:
            refused.append(f"{name} {model!r}: {error}")
            continue
        for reason in _lost(elements, fraction, zone):
            refused.append(f"{name} {model!r} {reason}")
        if "SYYYY" not in elements and elements & {"YYYY", "RRRR"}:
            warned.append(f"{name} {model!r} prints a BC year without its sign: read as AD")
        if zone and "TZR" in elements:
            warned.append(
                f"{name} {model!r} may print region names: a time in the hour a zone's "
                "clock goes back is read as its first occurrence"
            )
    if not _OFFSET.fullmatch(nls.time_zone.strip()) and nls.time_zone.upper() not in _NO_DST:
        warned.append(
            f"TIME_ZONE {nls.time_zone!r} is a region: a TIMESTAMP WITH LOCAL TIME ZONE in "
            "the hour its clock goes back is read as its first occurrence"
        )
    return NlsFindings(tuple(refused), tuple(warned))


def _lost(elements: set[str], fraction: bool, zone: bool) -> list[str]:
    lost: list[str] = []
    if not elements & {"SYYYY", "YYYY", "RRRR"}:
        lost.append("has no four-digit year (the century would be guessed)")
    if not elements & {"MM", "MON", "MONTH"} or "DD" not in elements:
        lost.append("has no month or no day of the month")
    if "HH24" not in elements and not (elements & {"HH", "HH12"} and elements & _MERIDIANS):
        lost.append("has no hour of the day (HH24, or HH with AM)")
    if not {"MI", "SS"} <= elements:
        lost.append("has no minutes or no seconds")
    if fraction and not elements & _FULL_FRACTIONS:
        lost.append("prints fewer than all fraction digits (FF or FF9 print them)")
    if zone and not ({"TZH", "TZM"} <= elements or "TZR" in elements):
        lost.append("has no time zone, or its offset without minutes (TZH:TZM or TZR)")
    return lost
