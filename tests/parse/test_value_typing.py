"""typed_value: literal + Oracle column -> the Python value fixed in spark_types."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.nls import NlsSettings
from extractor.parse import (
    UNSUPPORTED,
    Literal,
    ValueTypingError,
    parse_redo,
    typed_row,
    typed_value,
)

NLS = NlsSettings()


def col(data_type: str, precision: int | None = None, scale: int | None = None) -> ColumnDef:
    return ColumnDef("C", 1, data_type, data_precision=precision, data_scale=scale)


def typed(text: str, column: ColumnDef, nls: NlsSettings = NLS) -> object:
    return typed_value(Literal(text), column, nls)


# --- NULL and Unsupported Type ---------------------------------------------------------


@pytest.mark.parametrize("text", ["NULL", "IS NULL"])
def test_null_is_none_for_any_type(text: str) -> None:
    assert typed(text, col("NUMBER")) is None
    assert typed(text, col("DATE")) is None


def test_unsupported_type_is_a_marker_not_none() -> None:
    assert typed("Unsupported Type", col("VARCHAR2")) is UNSUPPORTED
    assert UNSUPPORTED is not None


# --- numbers ---------------------------------------------------------------------------


def test_number_with_scale_is_decimal_quantized_to_the_scale() -> None:
    value = typed("'1.5'", col("NUMBER", 5, 2))
    assert value == Decimal("1.50")
    assert str(value) == "1.50"


def test_number_too_large_for_its_precision_is_rejected() -> None:
    with pytest.raises(ValueTypingError, match="does not fit"):
        typed("'1000'", col("NUMBER", 5, 2))


def _typed_in_a_row(text: str, column: ColumnDef) -> object:
    """Through typed_row, the path the compiled typer takes too (conftest runs both)."""
    table = TableDef("S", "T", (column,))
    parsed = parse_redo(f'insert into "S"."T"("{column.name}") values ({text});')
    return typed_row(parsed, table, NLS).new[column.name]


@pytest.mark.parametrize("precision", [38, 29, None])
def test_a_number_of_all_nines_fits_its_precision_exactly(precision: int | None) -> None:
    """38 nines fit NUMBER(38): the limit check is exact, not rounded to 28 digits (found
    by review: ``abs()`` under the default decimal context refused these values)."""
    digits = 38 if precision is None else precision
    nines = "9" * digits
    for text in (f"'{nines}'", f"'-{nines}'"):
        assert _typed_in_a_row(text, col("NUMBER", precision, 0)) == Decimal(text.strip("'"))
    with pytest.raises(ValueTypingError, match="does not fit"):
        _typed_in_a_row(f"'1{'0' * digits}'", col("NUMBER", precision, 0))
    fraction = f"{'9' * (digits - 2)}.5"
    assert _typed_in_a_row(f"'{fraction}'", col("NUMBER", digits, 1)) == Decimal(fraction)


def test_number_with_more_digits_than_its_scale_is_rejected() -> None:
    with pytest.raises(ValueTypingError):
        typed("'1.005'", col("NUMBER", 5, 2))


def test_number_with_negative_scale() -> None:
    assert typed("'12300'", col("NUMBER", 3, -2)) == Decimal("12300")
    with pytest.raises(ValueTypingError):
        typed("'12345'", col("NUMBER", 3, -2))


def test_integer_has_precision_38_and_scale_0() -> None:
    assert typed("'-42'", col("NUMBER", None, 0)) == Decimal(-42)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("'7566'", "7566"),
        ("'.5'", "0.5"),
        ("'-1.50'", "-1.5"),
        ("'1E+3'", "1000"),
        ("'1.23E-130'", "0." + "0" * 129 + "123"),
        (
            "'12345678901234567890123456789012345678901'",
            "12345678901234567890123456789012345678901",
        ),
        ("3.0", "3"),
    ],
)
def test_plain_number_is_exact_canonical_text(text: str, expected: str) -> None:
    assert typed(text, col("NUMBER")) == expected


def test_float_is_exact_canonical_text() -> None:
    assert typed("'0.1000'", col("FLOAT", 126)) == "0.1"


def test_number_reads_the_nls_decimal_character() -> None:
    assert typed("'1,25'", col("NUMBER", 5, 2), NlsSettings(numeric_characters=",.")) == Decimal(
        "1.25"
    )


@pytest.mark.parametrize(
    ("text", "check"),
    [
        ("'1.5'", lambda v: v == 1.5),
        ("'Nan'", math.isnan),
        ("'NaN'", math.isnan),
        ("'Inf'", lambda v: v == math.inf),
        ("'-Inf'", lambda v: v == -math.inf),
        ("'Infinity'", lambda v: v == math.inf),
        ("'-Infinity'", lambda v: v == -math.inf),
    ],
)
def test_binary_double_keeps_nan_and_infinities(text: str, check: object) -> None:
    value = typed(text, col("BINARY_DOUBLE"))
    assert isinstance(value, float)
    assert callable(check) and check(value)


def test_binary_float_is_the_single_precision_value() -> None:
    # 0.1 as IEEE single is 0.100000001490116119384765625 (Oracle BINARY_FLOAT storage).
    assert typed("'0.1'", col("BINARY_FLOAT")) == 0.100000001490116119384765625
    assert typed("'0.5'", col("BINARY_FLOAT")) == 0.5


# --- datetimes -------------------------------------------------------------------------


def test_date_with_default_session_format() -> None:
    value = typed("TO_DATE('2003-06-17 13:04:05', 'YYYY-MM-DD HH24:MI:SS')", col("DATE"))
    assert value == datetime(2003, 6, 17, 13, 4, 5)


def test_date_uses_the_format_given_in_the_literal() -> None:
    value = typed("TO_DATE('02-APR-81', 'DD-MON-RR')", col("DATE"))
    assert value == datetime(1981, 4, 2)


def test_timestamp_trailing_dot_means_zero_fraction() -> None:
    value = typed("TO_TIMESTAMP('2020-02-01 00:00:00.')", col("TIMESTAMP(6)"))
    assert value == datetime(2020, 2, 1)


def test_timestamp_fraction_under_nls_timestamp_format() -> None:
    value = typed("TO_TIMESTAMP('2020-02-01 10:11:12.123456000')", col("TIMESTAMP(6)"))
    assert value == datetime(2020, 2, 1, 10, 11, 12, 123456)


def test_timestamp_in_oracle_default_format() -> None:
    nls = NlsSettings(timestamp_format="DD-MON-RR HH.MI.SSXFF AM")
    value = typed("TO_TIMESTAMP('27-MAR-18 01.34.56.007891 PM')", col("TIMESTAMP(6)"), nls)
    assert value == datetime(2018, 3, 27, 13, 34, 56, 7891)


def test_timestamp_with_more_than_six_digits_is_text() -> None:
    value = typed("TO_TIMESTAMP('2020-02-01 10:11:12.123456789')", col("TIMESTAMP(9)"))
    assert value == "2020-02-01 10:11:12.123456789"


def test_timestamp_tz_is_normalised_to_utc() -> None:
    value = typed(
        "TO_TIMESTAMP_TZ('2024-02-14 10:58:02.202590 +01:00')", col("TIMESTAMP(6) WITH TIME ZONE")
    )
    assert value == datetime(2024, 2, 14, 9, 58, 2, 202590, tzinfo=UTC)
    assert isinstance(value, datetime) and value.utcoffset() == timedelta(0)


def test_timestamp_tz_with_region_name() -> None:
    nls = NlsSettings(timestamp_tz_format="YYYY-MM-DD HH24:MI:SS.FF TZR")
    value = typed(
        "TO_TIMESTAMP_TZ('2024-07-01 12:00:00.0 Europe/Paris')",
        col("TIMESTAMP(6) WITH TIME ZONE"),
        nls,
    )
    assert value == datetime(2024, 7, 1, 10, 0, tzinfo=UTC)


def test_local_time_zone_value_without_offset_is_in_the_session_zone() -> None:
    nls = NlsSettings(time_zone="-05:00")
    value = typed(
        "TO_TIMESTAMP_TZ('2024-02-14 10:00:00.000000000')",
        col("TIMESTAMP(6) WITH LOCAL TIME ZONE"),
        nls,
    )
    assert value == datetime(2024, 2, 14, 15, 0, tzinfo=UTC)


def test_timestamp_tz_without_offset_is_rejected() -> None:
    with pytest.raises(ValueTypingError):
        typed("TO_TIMESTAMP_TZ('2024-02-14 10:00:00.0')", col("TIMESTAMP(6) WITH TIME ZONE"))


def test_timestamp_tz_with_nine_digits_is_utc_text() -> None:
    value = typed(
        "TO_TIMESTAMP_TZ('2024-02-14 00:30:00.123456789 +02:00')",
        col("TIMESTAMP(9) WITH TIME ZONE"),
    )
    assert value == "2024-02-13 22:30:00.123456789 +00:00"


def test_date_text_not_matching_the_format_is_rejected() -> None:
    with pytest.raises(ValueTypingError, match="DATE"):
        typed("TO_DATE('17/06/2003', 'YYYY-MM-DD HH24:MI:SS')", col("DATE"))


# --- intervals -------------------------------------------------------------------------


def test_year_to_month_interval_is_canonical_text() -> None:
    assert typed("TO_YMINTERVAL('-03-06')", col("INTERVAL YEAR(2) TO MONTH")) == "-3-06"


def test_day_to_second_interval_is_canonical_text() -> None:
    value = typed("TO_DSINTERVAL('-001 02:03:04.56')", col("INTERVAL DAY(3) TO SECOND(2)"))
    assert value == "-1 02:03:04.56"


def test_day_to_second_interval_with_nine_digit_fraction() -> None:
    value = typed("TO_DSINTERVAL('+000000000 00:00:00.000000001')", col("INTERVAL DAY TO SECOND"))
    assert value == "0 00:00:00.000000001"


# --- strings and bytes -----------------------------------------------------------------


def test_char_keeps_its_blank_padding() -> None:
    assert typed("'ab   '", col("CHAR")) == "ab   "


def test_unistr_decodes_utf16_units() -> None:
    assert typed("UNISTR('\\963F\\72F8')", col("NVARCHAR2")) == "\u963f\u72f8"


def test_unistr_surrogate_pair_is_one_character() -> None:
    assert typed("UNISTR('\\D83D\\DE00')", col("NVARCHAR2")) == "\U0001f600"


def test_unistr_pieces_joined_by_concatenation() -> None:
    text = "UNISTR('\\D83D') || UNISTR('\\DE00x') || 'y''z'"
    assert typed(text, col("NCLOB")) == "\U0001f600xy'z"


def test_unistr_backslash_escape() -> None:
    assert typed("UNISTR('a\\\\b')", col("NVARCHAR2")) == "a\\b"


def test_empty_clob_is_empty_string_and_empty_blob_is_empty_bytes() -> None:
    assert typed("EMPTY_CLOB()", col("CLOB")) == ""
    assert typed("EMPTY_BLOB()", col("BLOB")) == b""


def test_hextoraw_in_either_case_is_bytes() -> None:
    assert typed("HEXTORAW('0e')", col("RAW")) == b"\x0e"
    assert typed("hextoraw('0EFF')", col("BLOB")) == b"\x0e\xff"


def test_empty_string_literal_is_null_as_in_oracle() -> None:
    assert typed("''", col("VARCHAR2")) is None


def test_function_of_the_wrong_type_is_rejected() -> None:
    with pytest.raises(ValueTypingError):
        typed("HEXTORAW('0e')", col("NUMBER", 5, 0))


def test_type_we_do_not_replicate_is_rejected() -> None:
    with pytest.raises(ValueTypingError, match="XMLTYPE"):
        typed("'<a/>'", col("XMLTYPE"))


# --- whole rows ------------------------------------------------------------------------

TABLE = TableDef(
    "O",
    "T",
    (
        ColumnDef("ID", 1, "NUMBER", data_precision=6, data_scale=0),
        ColumnDef("N", 2, "VARCHAR2"),
        ColumnDef("D", 3, "DATE"),
    ),
    primary_key=("ID",),
)


def test_typed_row_types_both_images() -> None:
    parsed = parse_redo(
        """update "O"."T" set "N" = 'b' where "ID" = '7' and "D" = """
        """TO_DATE('2001-01-02 00:00:00', 'YYYY-MM-DD HH24:MI:SS') and "N" IS NULL"""
    )
    row = typed_row(parsed, TABLE, NLS)
    assert row.new == {"N": "b"}
    assert row.old == {"ID": Decimal(7), "D": datetime(2001, 1, 2), "N": None}


def test_typed_row_rejects_a_column_the_dictionary_lacks() -> None:
    parsed = parse_redo("""insert into "O"."T"("COL 1") values (HEXTORAW('c102'))""")
    with pytest.raises(ValueTypingError, match="COL 1"):
        typed_row(parsed, TABLE, NLS)


def test_utc_normalisation_does_not_depend_on_offset_sign() -> None:
    value = typed(
        "TO_TIMESTAMP_TZ('2024-01-01 00:00:00.0 -09:30')", col("TIMESTAMP WITH TIME ZONE")
    )
    assert value == datetime(2024, 1, 1, 9, 30, tzinfo=UTC)


def test_string_literal_containing_double_bar_is_one_value() -> None:
    assert typed("'a || b'", col("VARCHAR2")) == "a || b"


def test_lone_surrogate_half_is_rejected() -> None:
    with pytest.raises(ValueTypingError):
        typed("UNISTR('\\D83D')", col("NVARCHAR2"))
