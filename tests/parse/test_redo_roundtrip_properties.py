"""Property: rendering random rows as SQL_REDO (redo_text_renderer) and parsing them back
gives exactly the rendered values, raw and typed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from decimal import Context, Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.dictionary import ColumnDef, TableDef
from extractor.nls import NlsSettings
from extractor.parse import parse_redo, typed_row
from tests.parse import redo_text_renderer as render

names = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), min_size=1)
texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=40)
rowids = st.none() | st.from_regex(r"[A-Za-z0-9+/]{18}", fullmatch=True)
columns = st.lists(st.tuples(names, texts), min_size=1, max_size=8, unique_by=lambda p: p[0])
settings_ = settings(max_examples=150, deadline=None)


@settings_
@given(owner=names, table=names, values=columns)
def test_insert_strings_round_trip(owner: str, table: str, values: list[tuple[str, str]]) -> None:
    sql = render.insert(owner, table, [(c, render.string(v)) for c, v in values])
    parsed = parse_redo(sql)
    assert (parsed.owner, parsed.table) == (owner, table)
    assert {c: lit.string_value() for c, lit in parsed.new.items()} == dict(values)
    assert parsed.recovered_quotes is False


@settings_
@given(new=columns, old=columns, rowid=rowids)
def test_update_strings_round_trip(
    new: list[tuple[str, str]], old: list[tuple[str, str]], rowid: str | None
) -> None:
    sql = render.update(
        "O",
        "T",
        [(c, render.string(v)) for c, v in new],
        [(c, render.string(v)) for c, v in old],
        rowid,
    )
    parsed = parse_redo(sql)
    assert {c: lit.string_value() for c, lit in parsed.new.items()} == dict(new)
    assert {c: lit.string_value() for c, lit in parsed.old.items()} == dict(old)
    assert parsed.rowid == rowid


@settings_
@given(old=columns, rowid=rowids)
def test_delete_strings_round_trip(old: list[tuple[str, str]], rowid: str | None) -> None:
    parsed = parse_redo(render.delete("O", "T", [(c, render.string(v)) for c, v in old], rowid))
    assert {c: lit.string_value() for c, lit in parsed.old.items()} == dict(old)
    assert parsed.rowid == rowid


TABLE = TableDef(
    "HR",
    "MIXED",
    (
        ColumnDef("ID", 1, "NUMBER", data_precision=10, data_scale=0),
        ColumnDef("AMOUNT", 2, "NUMBER", data_precision=12, data_scale=3),
        ColumnDef("PLAIN", 3, "NUMBER"),
        ColumnDef("NAME", 4, "VARCHAR2"),
        ColumnDef("NNAME", 5, "NVARCHAR2"),
        ColumnDef("BORN", 6, "DATE"),
        ColumnDef("SEEN", 7, "TIMESTAMP(6)"),
        ColumnDef("AT", 8, "TIMESTAMP(6) WITH TIME ZONE"),
        ColumnDef("BLOBBY", 9, "RAW"),
        ColumnDef("RATIO", 10, "BINARY_DOUBLE"),
    ),
    primary_key=("ID",),
)

moments = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30))
offsets = st.integers(min_value=-12 * 60, max_value=14 * 60).map(
    lambda m: timezone(timedelta(minutes=m))
)


@st.composite
def mixed_rows(draw: st.DrawFn) -> tuple[list[tuple[str, str]], dict[str, object]]:
    """(rendered literals, expected Python values) for one row of TABLE."""
    ident = draw(st.integers(-(10**10) + 1, 10**10 - 1))
    amount = Decimal(draw(st.integers(-(10**12) + 1, 10**12 - 1))).scaleb(-3)
    plain = Decimal(draw(st.integers(-(10**38), 10**38))).scaleb(draw(st.integers(-130, 90)))
    name = draw(texts)
    nname = draw(texts)
    born = draw(moments).replace(microsecond=0)
    seen = draw(moments)
    at_local = draw(moments).replace(tzinfo=draw(offsets))
    blob = draw(st.binary(min_size=1, max_size=30))
    ratio = draw(st.floats(allow_nan=False) | st.sampled_from([float("inf"), float("-inf")]))
    literals = [
        ("ID", render.number(Decimal(ident))),
        ("AMOUNT", render.number(amount)),
        ("PLAIN", render.number(plain)),
        ("NAME", render.string(name)),
        ("NNAME", render.unistr(nname)),
        ("BORN", render.date(born)),
        ("SEEN", render.timestamp(seen)),
        ("AT", render.timestamp_tz(at_local)),
        ("BLOBBY", render.raw(blob)),
        ("RATIO", render.binary_double(ratio)),
    ]
    # Exact text without exponent or trailing zeros (spark_types: canonical decimal text).
    plain_text = format(plain.normalize(Context(prec=200)), "f") if plain else "0"
    expected: dict[str, object] = {
        "ID": Decimal(ident),
        "AMOUNT": amount,
        "PLAIN": plain_text,
        "NAME": name,
        "NNAME": nname,
        "BORN": born,
        "SEEN": seen,
        "AT": at_local.astimezone(UTC),
        "BLOBBY": blob,
        "RATIO": ratio,
    }
    return literals, expected


@settings_
@given(row=mixed_rows())
def test_typed_insert_round_trips_every_type(
    row: tuple[list[tuple[str, str]], dict[str, object]],
) -> None:
    literals, expected = row
    parsed = parse_redo(render.insert("HR", "MIXED", literals))
    typed = typed_row(parsed, TABLE, NlsSettings())
    assert typed.new == expected
    at = typed.new["AT"]
    assert isinstance(at, datetime) and at.utcoffset() == timedelta(0)
    assert typed.new["AMOUNT"].as_tuple().exponent == -3  # type: ignore[attr-defined]
