"""Reading text under Oracle datetime format models (SQL Reference, Datetime Format
Elements)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from extractor.errors import DatetimeFormatError
from extractor.parse.oracle_datetime_format import parse_datetime


def test_iso_like_session_format() -> None:
    parsed = parse_datetime("2024-02-29 23:59:58", "YYYY-MM-DD HH24:MI:SS")
    assert (parsed.year, parsed.month, parsed.day) == (2024, 2, 29)
    assert (parsed.hour, parsed.minute, parsed.second) == (23, 59, 58)


@pytest.mark.parametrize(
    ("text", "year"),
    [("02-APR-81", 1981), ("02-APR-49", 2049), ("02-APR-50", 1950), ("02-APR-1912", 1912)],
)
def test_rr_two_digit_year_rule_in_the_2020s(text: str, year: int) -> None:
    assert parse_datetime(text, "DD-MON-RR", current_year=2026).year == year


def test_rr_rule_when_the_current_year_is_in_the_second_half_of_its_century() -> None:
    assert parse_datetime("01-JAN-10", "DD-MON-RR", current_year=2075).year == 2110
    assert parse_datetime("01-JAN-60", "DD-MON-RR", current_year=2075).year == 2060


def test_yy_takes_the_current_century() -> None:
    assert parse_datetime("81", "YY", current_year=2026).year == 2081


def test_month_abbreviation_is_case_insensitive() -> None:
    assert parse_datetime("02-apr-2001", "DD-MON-YYYY").month == 4


def test_full_month_name() -> None:
    assert parse_datetime("September 3, 2001", "Month DD, YYYY").month == 9


def test_twelve_hour_clock_with_meridian() -> None:
    assert parse_datetime("12.05.00 AM", "HH.MI.SS AM").hour == 0
    assert parse_datetime("12.05.00 PM", "HH12.MI.SS PM").hour == 12
    assert parse_datetime("01.05.00 P.M.", "HH.MI.SS A.M.").hour == 13


@pytest.mark.parametrize(
    ("text", "nanos"),
    [("10:00:00.", 0), ("10:00:00.5", 500_000_000), ("10:00:00.000000001", 1)],
)
def test_fraction_digits_scale_to_nanoseconds(text: str, nanos: int) -> None:
    assert parse_datetime(text, "HH24:MI:SS.FF9").nanosecond == nanos


def test_radix_element_x_is_a_point_or_a_comma() -> None:
    assert parse_datetime("01.02.03.25", "HH24.MI.SSXFF").nanosecond == 250_000_000
    assert parse_datetime("01.02.03,25", "HH24.MI.SSXFF").nanosecond == 250_000_000


def test_offset_elements() -> None:
    parsed = parse_datetime("2024-01-01 00:00:00.0 -05:30", "YYYY-MM-DD HH24:MI:SS.FF TZH:TZM")
    assert parsed.tzinfo is not None
    assert parsed.tzinfo.utcoffset(None) == -timedelta(hours=5, minutes=30)


def test_missing_offset_is_allowed_and_left_unset() -> None:
    parsed = parse_datetime("2024-01-01 00:00:00.0", "YYYY-MM-DD HH24:MI:SS.FF TZH:TZM")
    assert parsed.tzinfo is None


def test_region_name() -> None:
    parsed = parse_datetime("2024-01-01 12:00:00 America/New_York", "YYYY-MM-DD HH24:MI:SS TZR")
    assert parsed.to_datetime().utcoffset() == -timedelta(hours=5)


def test_quoted_literal_text_in_the_model() -> None:
    assert parse_datetime("2024-01-02T03:04:05", 'YYYY-MM-DD"T"HH24:MI:SS').hour == 3


def test_text_that_does_not_match_raises() -> None:
    with pytest.raises(DatetimeFormatError):
        parse_datetime("2024/01/02", "YYYY-MM-DD")


def test_unsupported_element_raises() -> None:
    with pytest.raises(DatetimeFormatError, match="not supported"):
        parse_datetime("5", "Q")


def test_impossible_date_raises() -> None:
    with pytest.raises((DatetimeFormatError, ValueError)):
        parse_datetime("2023-02-29", "YYYY-MM-DD").to_datetime()
