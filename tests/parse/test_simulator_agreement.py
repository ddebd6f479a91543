"""The parser and the simulated Oracle agree: every value the simulator stores, rendered
as SQL_REDO by its renderer, parses and types back to the simulator's truth value.

This guards the contract between the two independent implementations (the simulator
renders from Oracle's documented format; the parser reads it)."""

from __future__ import annotations

import random

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.nls import UNSIGNED_YEAR_DEFAULTS, NlsSettings
from extractor.parse import parse_redo, typed_row
from extractor.sim.column_values import coerce_value, truth_value
from extractor.sim.redo_render import delete_sql, insert_sql
from extractor.sim.value_generator import ValueGenerator

COLUMNS = (
    ColumnDef("ID", 1, "NUMBER", data_precision=9, data_scale=0, nullable=False),
    ColumnDef("AMOUNT", 2, "NUMBER", data_precision=12, data_scale=3),
    ColumnDef("ROUNDED", 3, "NUMBER", data_precision=5, data_scale=-2),
    ColumnDef("PLAIN", 4, "NUMBER"),
    ColumnDef("APPROX", 5, "FLOAT", data_precision=126),
    ColumnDef("BF", 6, "BINARY_FLOAT"),
    ColumnDef("BD", 7, "BINARY_DOUBLE"),
    ColumnDef("CODE", 8, "CHAR", data_length=4),
    ColumnDef("NCODE", 9, "NCHAR", data_length=4),
    ColumnDef("NAME", 10, "VARCHAR2", data_length=4000),
    ColumnDef("NNAME", 11, "NVARCHAR2", data_length=2000),
    ColumnDef("BORN", 12, "DATE"),
    ColumnDef("T0", 13, "TIMESTAMP(0)"),
    ColumnDef("T3", 14, "TIMESTAMP(3)"),
    ColumnDef("T9", 15, "TIMESTAMP(9)"),
    ColumnDef("TZ6", 16, "TIMESTAMP(6) WITH TIME ZONE"),
    ColumnDef("TZ9", 17, "TIMESTAMP(9) WITH TIME ZONE"),
    ColumnDef("LTZ", 18, "TIMESTAMP(6) WITH LOCAL TIME ZONE"),
    ColumnDef("BYTES", 19, "RAW", data_length=16),
)
TABLE = TableDef("SIM", "ALL_TYPES", COLUMNS, primary_key=("ID",))

NLS_CASES = {
    "extractor defaults": NlsSettings(),
    "oracle-like formats, +02:00 session": NlsSettings(
        date_format="YYYY-MM-DD HH24:MI:SS",
        timestamp_format="DD-MON-YYYY HH.MI.SS.FF AM",
        timestamp_tz_format="DD-MON-YYYY HH.MI.SS.FF AM TZH:TZM",
        time_zone="+02:00",
    ),
    "comma decimal": NlsSettings(numeric_characters=",."),
    "unsigned years (the defaults before 2026-11-28)": UNSIGNED_YEAR_DEFAULTS,
}


def stored_row(rng: random.Random) -> dict[str, object]:
    generator = ValueGenerator(rng, long_value_ratio=0.2)
    return {c.name: coerce_value(c, generator.value(c)) for c in COLUMNS}


@pytest.mark.parametrize("nls_name", sorted(NLS_CASES))
def test_simulated_inserts_and_deletes_type_back_to_the_truth(nls_name: str) -> None:
    nls = NLS_CASES[nls_name]
    rng = random.Random(20240214)
    for _ in range(150):
        row = stored_row(rng)
        truth = {c.name: truth_value(c, row[c.name]) for c in COLUMNS}  # type: ignore[arg-type]
        insert = insert_sql(TABLE, TABLE.column_names, row, nls, empty_lobs=False)  # type: ignore[arg-type]
        typed = typed_row(parse_redo(insert, TABLE), TABLE, nls)
        assert typed.new == _nan_safe(truth), insert
        delete = delete_sql(TABLE, row, "AAAR5GAAEAAAAJPAAA", nls)  # type: ignore[arg-type]
        parsed = parse_redo(delete, TABLE)
        assert parsed.rowid == "AAAR5GAAEAAAAJPAAA"
        assert typed_row(parsed, TABLE, nls).old == _nan_safe(truth), delete


def _nan_safe(values: dict[str, object]) -> dict[str, object]:
    """NaN != NaN: compare NaN floats through a marker on both sides."""
    return {k: _NAN if isinstance(v, float) and v != v else v for k, v in values.items()}


class _NanMarker:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, float) and other != other

    def __hash__(self) -> int:
        return 0


_NAN = _NanMarker()
