"""SQL_REDO literals per data type, written from Oracle's documented forms
(``docs/logminer.md`` §3), not produced by the renderer."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from decimal import Decimal

from extractor.nls import NlsSettings
from extractor.sim.column_values import OracleTimestamp
from extractor.sim.database import SimDatabase

from .sim_tables import one_table


def _insert_sql(column_type: str, value: object, nls: NlsSettings | None = None) -> str:
    db = SimDatabase(nls=nls or NlsSettings())
    db.create_table(one_table(("V", column_type)))
    txn = db.begin()
    txn.insert("O", "T", {"ID": 1, "V": value})
    inserts = [r for r in db.logminer_contents(0, db.current_scn()) if r.operation_code == 1]
    assert inserts[0].sql_redo is not None
    return inserts[0].sql_redo


def test_string_quotes_are_doubled() -> None:
    assert _insert_sql("VARCHAR2(20)", "Bob's") == (
        """insert into "O"."T"("ID","V") values ('1','Bob''s');"""
    )


def test_empty_varchar2_is_null() -> None:
    assert _insert_sql("VARCHAR2(20)", "") == """insert into "O"."T"("ID","V") values ('1',NULL);"""


def test_char_is_blank_padded() -> None:
    assert _insert_sql("CHAR(5)", "ab").endswith("values ('1','ab   ');")


def test_number_with_scale_is_rounded_half_up_and_quoted() -> None:
    assert _insert_sql("NUMBER(5,2)", Decimal("2.345")).endswith("values ('1','2.35');")


def test_number_below_one_has_no_leading_zero() -> None:
    assert _insert_sql("NUMBER", Decimal("0.50")).endswith("values ('1','.5');")


def test_national_non_ascii_text_is_unistr_of_utf16_units() -> None:
    assert _insert_sql("NVARCHAR2(20)", "阿狸").endswith("values ('1',UNISTR('\\963F\\72F8'));")


def test_national_text_outside_bmp_uses_surrogate_pairs() -> None:
    # U+1F600 is D83D DE00 in UTF-16
    assert _insert_sql("NVARCHAR2(20)", "😀").endswith("UNISTR('\\D83D\\DE00'));")


def test_date_is_to_date_with_the_session_format() -> None:
    sql = _insert_sql("DATE", datetime(2024, 2, 14, 10, 58, 2, 999_999))
    assert sql.endswith("values ('1',TO_DATE(' 2024-02-14 10:58:02', 'SYYYY-MM-DD HH24:MI:SS'));")


def test_date_under_oracle_default_format_drops_century_and_time() -> None:
    nls = NlsSettings(date_format="DD-MON-RR")
    sql = _insert_sql("DATE", datetime(1981, 4, 2, 13, 0), nls)
    assert sql.endswith("TO_DATE('02-APR-81', 'DD-MON-RR'));")


def test_timestamp_is_one_argument_to_timestamp_with_nine_digits() -> None:
    sql = _insert_sql("TIMESTAMP(6)", datetime(2024, 2, 14, 10, 58, 2, 202590))
    assert sql.endswith("TO_TIMESTAMP(' 2024-02-14 10:58:02.202590000'));")


def test_timestamp_zero_fraction_under_ff_leaves_a_trailing_dot() -> None:
    nls = NlsSettings(timestamp_format="YYYY-MM-DD HH24:MI:SS.FF")
    sql = _insert_sql("TIMESTAMP(0)", datetime(2020, 2, 1), nls)
    assert sql.endswith("TO_TIMESTAMP('2020-02-01 00:00:00.'));")


def test_timestamp_nine_keeps_nanoseconds() -> None:
    value = OracleTimestamp(datetime(2024, 1, 2, 3, 4, 5), 123_456_789)
    assert _insert_sql("TIMESTAMP(9)", value).endswith("' 2024-01-02 03:04:05.123456789'));")


def test_timestamp_three_rounds_the_fraction() -> None:
    value = OracleTimestamp(datetime(2024, 1, 2, 3, 4, 5), 999_600_000)
    assert _insert_sql("TIMESTAMP(3)", value).endswith("' 2024-01-02 03:04:06.000000000'));")


def test_timestamp_with_time_zone_keeps_its_offset() -> None:
    value = datetime(2024, 2, 14, 10, 58, 2, 202590, tzinfo=timezone(timedelta(hours=1)))
    sql = _insert_sql("TIMESTAMP(6) WITH TIME ZONE", value)
    assert sql.endswith("TO_TIMESTAMP_TZ(' 2024-02-14 10:58:02.202590000 +01:00'));")


def test_negative_offset_renders_minus_hours_and_minutes() -> None:
    value = datetime(2024, 2, 14, 10, 58, 2, tzinfo=timezone(-timedelta(hours=5, minutes=30)))
    sql = _insert_sql("TIMESTAMP(6) WITH TIME ZONE", value)
    assert sql.endswith("' 2024-02-14 10:58:02.000000000 -05:30'));")


def test_raw_is_hextoraw() -> None:
    assert _insert_sql("RAW(4)", b"\x0e").endswith("values ('1',HEXTORAW('0e'));")


def test_binary_double_special_values_are_quoted_nan_and_inf() -> None:
    assert _insert_sql("BINARY_DOUBLE", float("nan")).endswith("values ('1','Nan');")
    assert _insert_sql("BINARY_DOUBLE", float("-inf")).endswith("values ('1','-Inf');")


def test_binary_float_is_the_shortest_text_of_the_single_precision_value() -> None:
    assert _insert_sql("BINARY_FLOAT", 0.1).endswith("values ('1','0.1');")


def test_decimal_comma_follows_nls_numeric_characters() -> None:
    nls = NlsSettings(numeric_characters=",.")
    assert _insert_sql("NUMBER", Decimal("1.5"), nls).endswith("values ('1','1,5');")
