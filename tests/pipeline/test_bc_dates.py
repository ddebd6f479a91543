"""A DATE before 1 AD: the extractor's session formats sign the year (SYYYY), so a BC date
in the redo is quarantined with why; under YYYY, Oracle's usual default, it would print as
the same year AD and land so, silently. On the simulator, into in-memory staging tables."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import SyncStepError, UnfetchableValueError, ValueTypingError
from extractor.nls import UNSIGNED_YEAR_DEFAULTS, NlsSettings
from extractor.parse import implementation, parse_redo, typed_row
from extractor.parse.value_typing import parse_typed
from extractor.sim.column_values import BcDate, coerce_value
from extractor.sim.database import SimDatabase
from extractor.sim.datetime_format import format_datetime
from extractor.sim.redo_render import insert_sql
from extractor.source.oracle.snapshot import _raise_mapped, column_converter, select_expression
from extractor.verify.digest_rows import VerifyColumn
from extractor.verify.source_digest import text_expression
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory

T = TableDef(
    "APP",
    "EVENTS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("HAPPENED", 2, "DATE"),
    ),
    ("ID",),
)
JULIAN_DAY_ONE = BcDate(datetime(4712, 1, 1))  # TO_DATE('1', 'J'): Oracle's earliest DATE


def test_the_year_is_signed_under_syyyy_and_loses_its_sign_under_yyyy() -> None:
    moment = datetime(4712, 1, 1, 13, 5, 9)
    assert format_datetime("SYYYY-MM-DD HH24:MI:SS", moment, bc=True) == "-4712-01-01 13:05:09"
    assert format_datetime("SYYYY-MM-DD HH24:MI:SS", moment) == " 4712-01-01 13:05:09"
    assert format_datetime("YYYY-MM-DD HH24:MI:SS", moment, bc=True) == "4712-01-01 13:05:09"


@pytest.mark.parametrize("parser", ["compiled", "python"])
def test_a_bc_date_in_sql_redo_is_refused_by_both_parsers(parser: str) -> None:
    if parser == "compiled" and implementation.compiled is None:
        pytest.fail("the C extension is not built")
    nls = NlsSettings()  # the extractor's session formats
    row = {"ID": coerce_value(T.columns[0], 1), "HAPPENED": JULIAN_DAY_ONE}
    sql = insert_sql(T, T.column_names, row, nls, empty_lobs=False)
    assert "TO_DATE('-4712-01-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS')" in sql
    with pytest.raises(ValueTypingError, match="year -4712 is before 1 AD"):
        if parser == "compiled":
            assert parse_typed(sql, T, nls) is None  # declined: the reference decides
        with implementation.pure_python():
            typed_row(parse_redo(sql, T), T, nls)


def test_an_ad_date_under_syyyy_is_typed_by_the_compiled_parser() -> None:
    if implementation.compiled is None:
        pytest.fail("the C extension is not built")
    nls = NlsSettings()
    row = {"ID": coerce_value(T.columns[0], 1), "HAPPENED": datetime(2024, 2, 29, 23, 59, 58)}
    sql = insert_sql(T, T.column_names, row, nls, empty_lobs=False)
    assert "TO_DATE(' 2024-02-29 23:59:58', 'SYYYY-MM-DD HH24:MI:SS')" in sql
    typed = parse_typed(sql, T, nls)
    assert typed is not None
    assert typed[0]["HAPPENED"] == datetime(2024, 2, 29, 23, 59, 58)


def _config(work: Path) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_bc_dates", "error_policy": "warn"},
        base_dir=work,
    )  # fmt: skip


def _stream_a_bc_and_an_ad_date(db: SimDatabase, work: Path) -> MemoryStagingWriter:
    db.create_table(T)
    config = _config(work)
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)  # the snapshot of the empty table
    txn = db.begin()
    txn.insert("APP", "EVENTS", {"ID": 1, "HAPPENED": JULIAN_DAY_ONE})
    txn.insert("APP", "EVENTS", {"ID": 2, "HAPPENED": datetime(4712, 1, 1)})
    txn.commit()
    extract_into_memory(db, config, writer)
    return writer


def test_a_bc_date_is_quarantined_not_landed_as_the_same_year_ad(tmp_path: Path) -> None:
    writer = _stream_a_bc_and_an_ad_date(SimDatabase(), tmp_path)
    landed = {int(r["id"]): r["happened"] for r in writer.staged_rows(T) if r["id"] is not None}
    assert landed == {2: datetime(4712, 1, 1)}
    (quarantined,) = writer.quarantined_rows()
    assert "year -4712 is before 1 AD" in quarantined["reason"]


def test_under_yyyy_formats_the_bc_date_would_land_as_ad(tmp_path: Path) -> None:
    """Why the session signs the year: the same redo under YYYY, as a source whose session
    kept Oracle's usual formats would write it, gives both rows the year 4712 AD."""
    writer = _stream_a_bc_and_an_ad_date(SimDatabase(nls=UNSIGNED_YEAR_DEFAULTS), tmp_path)
    landed = {int(r["id"]): r["happened"] for r in writer.staged_rows(T) if r["id"] is not None}
    assert landed == {1: datetime(4712, 1, 1), 2: datetime(4712, 1, 1)}
    assert writer.quarantined_rows() == []


def test_a_snapshot_of_a_bc_date_stops_with_the_table_and_its_date_columns(
    tmp_path: Path,
) -> None:
    """python-oracledb cannot fetch a DATE before 1 AD (``ValueError: year -4712 is out of
    range``, its issues 345 and 400): the snapshot stops with what to do, never a traceback
    and never a row landed without it."""
    db = SimDatabase()
    db.create_table(T)
    txn = db.begin()
    txn.insert("APP", "EVENTS", {"ID": 1, "HAPPENED": JULIAN_DAY_ONE})
    txn.commit()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    with pytest.raises(SyncStepError) as stopped:
        extract_into_memory(db, config, writer)
    assert isinstance(stopped.value.__cause__, UnfetchableValueError)
    message = stopped.value.one_line()
    assert "cannot fetch a value of APP.EVENTS (one of HAPPENED)" in message
    assert "year -4712 is out of range" in message
    assert "columns: exclude" in message
    assert [r for r in writer.staged_rows(T) if r["id"] is not None] == []


def test_excluding_the_column_lets_the_snapshot_through(tmp_path: Path) -> None:
    db = SimDatabase()
    db.create_table(T)
    txn = db.begin()
    txn.insert("APP", "EVENTS", {"ID": 1, "HAPPENED": JULIAN_DAY_ONE})
    txn.commit()
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_bc_dates", "error_policy": "warn",
         "columns": {"APP.EVENTS": {"exclude": ["HAPPENED"]}}},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    assert [int(r["id"]) for r in writer.staged_rows(T) if r["id"] is not None] == [1]


def test_a_timestamp_read_as_signed_text_keeps_ad_values_and_refuses_bc_ones() -> None:
    """TIMESTAMP(7..9) is read as text (Spark holds microseconds): under SYYYY, so that a BC
    year is not printed as the same year AD. The AD year's leading space is taken off; a BC
    one stops the read as a fetched BC DATE does."""
    column = ColumnDef("AT", 1, "TIMESTAMP(9)")
    assert "'SYYYY-MM-DD HH24:MI:SS.FF9'" in select_expression(column)
    convert = column_converter(column)
    assert convert(" 2024-02-29 23:59:58.123456789") == "2024-02-29 23:59:58.123456789"
    with pytest.raises(ValueError, match="year -4712 is out of range") as refused:
        convert("-4712-01-01 00:00:00.000000000")
    with pytest.raises(UnfetchableValueError, match="one of HAPPENED, AT"):
        _raise_mapped(refused.value, replace(T, columns=(*T.columns, column)), 7)
    zoned = ColumnDef("AT", 1, "TIMESTAMP(9) WITH TIME ZONE")
    converted = column_converter(zoned)(" 2024-02-29 23:59:58.123456789 +00:00")
    assert converted == "2024-02-29 23:59:58.123456789 +00:00"


def test_verify_compares_the_timestamp_text_without_the_sign_space() -> None:
    """Oracle computes verify's digests over this text: the AD year's space must not be in
    it, or every TIMESTAMP(9) value would differ from the replica's."""
    column = VerifyColumn("AT", "at", "TIMESTAMP(9)", "STRING")
    assert text_expression(column).startswith('LTRIM(TO_CHAR("AT", \'SYYYY-')
