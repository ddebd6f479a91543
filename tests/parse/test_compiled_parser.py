"""The compiled scanner and typer against the pure-Python reference, statement by statement
and literal by literal.

The compiled code reads a subset of what the reference reads and declines the rest. Two
properties: on well-formed statements in the shapes LogMiner writes it reads them itself
(else it would be no faster), and on anything, mutated or not, what it returns is exactly
what the reference returns (else it would be wrong). The rest of this folder runs every
test against both implementations (``conftest.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import RedoParseError, ValueTypingError
from extractor.nls import UNSIGNED_YEAR_DEFAULTS, NlsSettings
from extractor.parse import implementation, parse_redo, typed_row, value_typing
from extractor.parse.change_builder import packed_redo_position
from extractor.parse.literals import Literal
from extractor.parse.redo_parser import _parse_strict
from extractor.parse.redo_statement import ParsedRedo
from extractor.redo_position import RedoPosition
from tests.parse import redo_text_renderer as render

RUN_ON_BOTH_IMPLEMENTATIONS = False  # it compares them itself (conftest.py)
compiled = implementation.compiled
needs_compiled = pytest.mark.skipif(
    compiled is None and os.environ.get("CI") != "true",
    reason=f"the compiled parser is not built here: {implementation.active()}",
)
pytestmark = needs_compiled
EXAMPLES = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_the_compiled_parser_is_active_where_it_was_built() -> None:
    assert compiled is not None, implementation.active()
    assert implementation.active().startswith("compiled")


# --- statements ------------------------------------------------------------------------

ascii_names = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E), min_size=1, max_size=12
)
any_text = st.text(st.characters(codec="utf-8"), max_size=30)
moments = st.datetimes(min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 30))


@st.composite
def literals(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return "NULL"
    if kind == 1:
        return render.string(draw(any_text))
    if kind == 2:
        return render.number(Decimal(draw(st.integers(-(10**20), 10**20))).scaleb(-3))
    if kind == 3:
        return render.date(draw(moments))
    if kind == 4:
        return render.timestamp(draw(moments))
    if kind == 5:
        offset = timezone(timedelta(minutes=draw(st.integers(-12 * 60, 14 * 60))))
        return render.timestamp_tz(draw(moments).replace(tzinfo=offset))
    if kind == 6:
        return render.raw(draw(st.binary(max_size=20)))
    if kind == 7:
        return render.unistr(draw(any_text.filter(bool)), draw(st.integers(1, 40)))
    if kind == 8:
        return draw(st.sampled_from(["Unsupported Type", "EMPTY_CLOB()", "-1.5e+10", ".5"]))
    return "/* comment */ " + render.string(draw(any_text))


spaces = st.sampled_from([" ", "  ", "\n", "\t", " \r\n "])
# each column once, as Oracle writes it (a column named twice is left to the relaxed reading)
pairs = st.lists(
    st.tuples(ascii_names, literals()), min_size=1, max_size=8, unique_by=lambda pair: pair[0]
)
rowids = st.none() | st.from_regex(r"[A-Za-z0-9+/]{18}", fullmatch=True)


@st.composite
def statements(draw: st.DrawFn) -> str:
    owner, table = draw(ascii_names), draw(ascii_names)
    which = draw(st.sampled_from(["insert", "update", "delete"]))
    if which == "insert":
        sql = render.insert(owner, table, draw(pairs))
    elif which == "update":
        sql = render.update(owner, table, draw(pairs), draw(pairs), draw(rowids))
    else:
        sql = render.delete(owner, table, draw(pairs), draw(rowids))
    space = draw(spaces)
    for structural in (" = ", " and ", " where ", " set ", " values ", "insert into "):
        sql = sql.replace(structural, structural.replace(" ", space))
    if draw(st.booleans()):
        for keyword in ("insert", "into", "values", "update", "set", "where", "delete", "from"):
            sql = sql.replace(f"{keyword}{space}", f"{keyword.upper()}{space}")
    if draw(st.booleans()):
        sql = draw(spaces) + sql.rstrip(";")
    return sql


def _reference(sql: str) -> ParsedRedo | type[RedoParseError] | None:
    try:
        return _parse_strict(sql)
    except RedoParseError:
        return RedoParseError


@EXAMPLES
@given(sql=statements())
def test_the_compiled_scanner_reads_well_formed_statements_as_the_reference(sql: str) -> None:
    assert compiled is not None
    expected = _reference(sql)
    assert isinstance(expected, ParsedRedo), "the renderer wrote a statement the reference reads"
    assert compiled.parse_strict(sql) == expected


STRUCTURE = [*"'\"(),;=|/*. \t\nxX0", "\u00a0", "\u0663", "\u00e9", "\x1c", "''", '""']


@st.composite
def mutated_statements(draw: st.DrawFn) -> str:
    sql = draw(statements())
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.integers(0, 3))
        if action == 3:  # near the end, where the last clause must end the statement
            at, action = max(0, len(sql) - draw(st.integers(0, 2))), 1
        else:
            at = draw(st.integers(0, len(sql)))
        if action == 0:
            sql = sql[:at] + sql[at + 1 :]
        elif action == 1:
            sql = sql[:at] + draw(st.sampled_from(STRUCTURE)) + sql[at:]
        else:
            sql = sql[:at] + draw(st.sampled_from(STRUCTURE)) + sql[at + 1 :]
    return sql


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sql=mutated_statements())
def test_on_any_text_the_compiled_scanner_declines_or_agrees(sql: str) -> None:
    assert compiled is not None
    fast = compiled.parse_strict(sql)
    if fast is not None:
        assert fast == _reference(sql)


@pytest.mark.parametrize(
    "sql",
    [
        # Unicode whitespace and digits in structural places: the reference's \s and \d read
        # them, the compiled scanner declines, the reference then reads the statement.
        'insert into "S"."T"("A")\u00a0values (\'1\');',
        'insert into "S"."T"("A") values (1\u0663);',
        'update "S"."T" set a\u00e9."A" = \'1\';',
        # LogMiner's empty ROWID predicate: the reference keeps it as a column named ''.
        'delete from "S"."T" where "A" = \'1\' and ROWID = \'\';',
        # null in lower case is a NULL literal whose text the typer refuses
        'insert into "S"."T"("A") values (null);',
    ],
)
def test_statements_the_compiled_scanner_leaves_to_the_reference(sql: str) -> None:
    assert compiled is not None
    fast = compiled.parse_strict(sql)
    assert fast is None or fast == _parse_strict(sql)
    assert parse_redo(sql) == _parse_strict(sql)


# --- literals --------------------------------------------------------------------------

TYPES = [
    ("N", "NUMBER", None, None),
    ("F", "FLOAT", 63, None),
    ("D2", "NUMBER", 12, 2),
    ("D0", "NUMBER", 10, 0),
    ("D38", "NUMBER", 38, 0),
    ("DN", "NUMBER", 8, -2),
    ("BD", "BINARY_DOUBLE", None, None),
    ("BF", "BINARY_FLOAT", None, None),
    ("DT", "DATE", None, None),
    ("TS", "TIMESTAMP(6)", None, None),
    ("TS3", "TIMESTAMP(3)", None, None),
    ("TS9", "TIMESTAMP(9)", None, None),
    ("TZ", "TIMESTAMP(6) WITH TIME ZONE", None, None),
    ("LTZ", "TIMESTAMP(6) WITH LOCAL TIME ZONE", None, None),
    ("V", "VARCHAR2", None, None),
    ("NV", "NVARCHAR2", None, None),
    ("R", "RAW", None, None),
    ("IDS", "INTERVAL DAY(2) TO SECOND(6)", None, None),
    ("X", "XMLTYPE", None, None),
]
TABLE = TableDef(
    "S",
    "T",
    tuple(
        ColumnDef(name, i, data_type, data_precision=p, data_scale=s)
        for i, (name, data_type, p, s) in enumerate(TYPES, start=1)
    ),
)
COLUMN_NAMES = [name for name, *_ in TYPES]

number_texts = st.one_of(
    st.from_regex(r"[-+]?[0-9]{0,14}(\.[0-9]{0,6})?", fullmatch=True),
    st.sampled_from(["-0", "-0.00", ".5", "-.5", "007.50", "1e5", "1.5E+10", "Nan", "-Inf"]),
    st.sampled_from(["9999999999.99", "10000000000", "1,5", " 1", "1_0", "''", "99999999"]),
    st.sampled_from(["Infinity", "-infinity", "+Inf", "NaN", "-NaN", "+nan", "inf ", "Infx"]),
    st.sampled_from(["inf\x00", "nan\x00", "-inf\x00x", "Nan\x00Z"]),  # NUL: refused there
    st.integers(26, 40).map(lambda n: "9" * n),  # past 28 digits: limits checked exactly
)


def _datetime_texts(draw: st.DrawFn, function: str) -> str:
    moment = draw(moments)
    shape = draw(st.sampled_from(["{:%Y-%m-%d %H:%M:%S}", "{:%Y-%m-%d %H:%M:%S}.{:0>{}}"]))
    digits = draw(st.integers(1, 10))
    text = shape.format(moment, draw(st.integers(0, 10**digits - 1)), digits)
    if draw(st.integers(0, 2)) == 0:  # SYYYY's sign position: AD, BC, and what Oracle never prints
        text = draw(st.sampled_from([" ", "-", "+", "  "])) + text
    if draw(st.booleans()):
        text += draw(st.sampled_from([" +00:00", " -03:30", " +14:00", " -00:30", " +5:00"]))
    if draw(st.integers(0, 3)) == 0:
        function = draw(st.sampled_from(["TO_DATE", "TO_TIMESTAMP", "TO_TIMESTAMP_TZ", ""]))
    return f"{function}('{text}')" if function else f"'{text}'"


SPECIAL_DATETIMES = [
    "TO_DATE('2024-02-29 10:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_DATE('2023-02-29 10:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_DATE('2024-01-01 24:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_DATE('0999-01-01 10:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_DATE('2024-01-01 10:00:00', 'DD-MM-YYYY HH24:MI:SS')",
    "to_date('2024-01-01 10:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_TIMESTAMP_TZ('0001-01-01 00:10:00.000000000 +01:00')",
    "TO_TIMESTAMP_TZ('9999-12-31 23:50:00.000000000 -01:00')",
    "TO_TIMESTAMP('2024-01-01 10:00:00.')",
    "TO_DATE(' 2024-02-29 10:00:00', 'SYYYY-MM-DD HH24:MI:SS')",
    "TO_DATE('-4712-01-01 00:00:00', 'SYYYY-MM-DD HH24:MI:SS')",
    "TO_DATE(' 2024-02-29 10:00:00', 'YYYY-MM-DD HH24:MI:SS')",
    "TO_TIMESTAMP('-0044-03-15 12:00:00.000000000')",
]
FAMILY_FUNCTION = {"DT": "TO_DATE", "TS": "TO_TIMESTAMP", "TS3": "TO_TIMESTAMP"}
FAMILY_FUNCTION |= {"TS9": "TO_TIMESTAMP", "TZ": "TO_TIMESTAMP_TZ", "LTZ": "TO_TIMESTAMP_TZ"}
ODD_TEXTS = ["NULL", "IS NULL", "Unsupported Type", "null", "''", "''''"]


@st.composite
def typed_literals(draw: st.DrawFn, column: str) -> str:
    """A literal in the shapes of ``column``'s type most of the time, mutated or not; any
    other literal the rest of the time."""
    if draw(st.integers(0, 9)) == 0:
        choice = draw(st.integers(0, 4))
        if choice == 0:
            return draw(literals())
        if choice == 1:
            return draw(st.sampled_from(ODD_TEXTS))
        if choice == 2:
            return "'" + draw(any_text).replace("'", draw(st.sampled_from(["''", "'"]))) + "'"
        if choice == 3:
            return draw(st.sampled_from(SPECIAL_DATETIMES))
        return draw(st.sampled_from(["TO_DSINTERVAL('+01 02:03:04.5')", "EMPTY_BLOB()", "'1'"]))
    if column in ("N", "F", "D2", "D0", "D38", "DN", "BD", "BF"):
        text = draw(number_texts)
        return text if draw(st.booleans()) and text[:1] != "'" else f"'{text}'"
    if column in FAMILY_FUNCTION:
        return _datetime_texts(draw, FAMILY_FUNCTION[column])
    if column == "R":
        hexes = draw(st.text("0123456789abcdefABCDEF g'", max_size=12))
        return f"HEXTORAW('{hexes}')"
    if column == "NV" and draw(st.booleans()):
        body = draw(st.text("ab\\0123456789ABCDEFD8'", max_size=14))
        if draw(st.booleans()):  # surrogate halves, paired or not, and doubled quotes
            pieces = ["\\D83D\\DE00", "\\D83D", "\\DE00", "\\DBFF\\DFFF", "''", "x", "\\\\"]
            body = "".join(draw(st.lists(st.sampled_from(pieces), max_size=5))) + body
        return f"UNISTR('{body}')"
    return draw(literals())


def _typed(literal_by_column: dict[str, str], nls: NlsSettings) -> object:
    parsed = ParsedRedo(
        "INSERT", "S", "T", {c: Literal(v) for c, v in literal_by_column.items()}, {}
    )
    try:
        new, _ = typed_row(parsed, TABLE, nls)
    except ValueTypingError as error:
        return ("error", str(error), error.column, error.literal)
    return {name: (type(value).__name__, repr(value)) for name, value in new.items()}


nls_settings = st.sampled_from(
    [
        NlsSettings(),
        NlsSettings(numeric_characters=",."),
        NlsSettings(date_format="DD-MON-RR", timestamp_format="YYYY-MM-DD HH24:MI:SS.FF"),
        NlsSettings(timestamp_tz_format="YYYY-MM-DD HH24:MI:SS.FF TZR", time_zone="+02:00"),
        UNSIGNED_YEAR_DEFAULTS,
    ]
)


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), column=st.sampled_from(COLUMN_NAMES), nls=nls_settings)
def test_the_compiled_typer_gives_the_references_value_or_error(
    data: st.DataObject, column: str, nls: NlsSettings
) -> None:
    text = data.draw(typed_literals(column))
    fast = _typed({column: text}, nls)
    with implementation.pure_python():
        reference = _typed({column: text}, nls)
    assert fast == reference


COMMON_SHAPES = [
    {
        "N": "'-12.50'",
        "D2": "'1234.5'",
        "D0": "'42'",
        "BD": "'1.5E+10'",
        "BF": "'0.1'",
        "DT": "TO_DATE(' 2021-01-19 09:32:14', 'SYYYY-MM-DD HH24:MI:SS')",
        "TS": "TO_TIMESTAMP(' 2028-06-11 14:41:40.570930000')",
        "TS9": "TO_TIMESTAMP(' 2028-06-11 14:41:40.570930123')",
        "TZ": "TO_TIMESTAMP_TZ(' 2024-01-01 00:04:36.430232000 -03:30')",
        "V": "'O''Neil'",
        "NV": "UNISTR('caf\\00E9 \\963F\\72F8')",
        "R": "HEXTORAW('00ff10')",
    },
    {
        "NV": "UNISTR('O''Neil \\D83D\\DE00 \\0395')",
        "V": "EMPTY_CLOB()",
        "BD": "'Nan'",
        "BF": "'-Inf'",
        "LTZ": "NULL",  # a kind the compiled typer leaves to the reference: NULL read in C
        "IDS": "IS NULL",
        "DN": "'-123400'",  # NUMBER(8,-2)
    },
]
# The same datetimes as a session with unsigned years (the defaults before 2026-11-28, and
# replay bundles recorded then) writes them.
UNSIGNED_YEAR_SHAPES = {
    name: text.replace("(' ", "('").replace("'SYYYY", "'YYYY")
    for name, text in COMMON_SHAPES[0].items()
}
SHAPE_CASES = [
    (COMMON_SHAPES[0], NlsSettings()),
    (COMMON_SHAPES[1], NlsSettings()),
    (UNSIGNED_YEAR_SHAPES, UNSIGNED_YEAR_DEFAULTS),
]


def _reference_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The columns the compiled code hands to the reference typer from now on."""
    calls: list[str] = []
    reference_one = value_typing._typed_one

    def counting(name: str, *args: object) -> object:
        calls.append(name)
        return reference_one(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(value_typing, "_typed_one", counting)
    return calls


@pytest.mark.parametrize(
    ("literal_by_column", "nls"), SHAPE_CASES, ids=["values", "more_values", "unsigned_years"]
)
def test_the_compiled_typer_reads_the_common_shapes_itself(
    monkeypatch: pytest.MonkeyPatch, literal_by_column: dict[str, str], nls: NlsSettings
) -> None:
    """Each shape LogMiner writes under the default NLS settings (and under the unsigned
    years of the defaults before) is typed in C: the reference fallback is not called (and
    the values are the reference's)."""

    with implementation.pure_python():
        expected = _typed(literal_by_column, nls)
    calls = _reference_calls(monkeypatch)
    assert _typed(literal_by_column, nls) == expected
    assert calls == []
    assert isinstance(expected, dict)
    if "TZ" in expected:
        moment = datetime(2024, 1, 1, 3, 34, 36, 430232, UTC)
        assert expected["TZ"] == ("datetime", repr(moment))
        assert expected["TS9"] == ("str", repr("2028-06-11 14:41:40.570930123"))
    else:
        assert expected["NV"] == ("str", repr("O'Neil \U0001f600 \u0395"))
        assert expected["V"] == ("str", "''")
        assert expected["BF"] == ("float", "-inf")
        assert expected["DN"] == ("Decimal", repr(Decimal("-123400")))


# --- parsing and typing in one pass (parse_typed) ---------------------------------------


def _typed_statement(sql: str, nls: NlsSettings) -> object:
    """What the change builder gets for ``sql`` by the reference: the typed images (value
    types and reprs, in statement order) and the ROWID, or the error's class."""
    try:
        parsed = parse_redo(sql, TABLE)
        unknown = (set(parsed.new) | set(parsed.old)) - set(COLUMN_NAMES)
        if unknown:
            return "unknown column"
        new, old = typed_row(parsed, TABLE, nls)
    except (RedoParseError, ValueTypingError) as error:
        return type(error).__name__
    return _shown(new), _shown(old), parsed.rowid


def _shown(image: dict[str, object]) -> list[tuple[str, str, str, object]]:
    """Each value's type and repr, and the value itself for a str: two str objects of the
    same text but of different widths (a non-canonical one) are not equal."""
    return [
        (name, type(value).__name__, repr(value), value if isinstance(value, str) else None)
        for name, value in image.items()
    ]


@st.composite
def typed_statements(draw: st.DrawFn) -> str:
    """A statement on TABLE's columns, in its types' shapes mostly; mutated at times."""
    columns = st.lists(st.sampled_from(COLUMN_NAMES), min_size=1, max_size=6, unique=True)
    new = [(c, draw(typed_literals(c))) for c in draw(columns)]
    old = [(c, draw(typed_literals(c))) for c in draw(columns)]
    which = draw(st.sampled_from(["insert", "update", "delete"]))
    if which == "insert":
        sql = render.insert("S", "T", new)
    elif which == "update":
        sql = render.update("S", "T", new, old, draw(rowids))
    else:
        sql = render.delete("S", "T", old, draw(rowids))
    if draw(st.integers(0, 4)) == 0:
        at = draw(st.integers(0, len(sql)))
        sql = sql[:at] + draw(st.sampled_from([*STRUCTURE, '"ZZ" = 1 and '])) + sql[at:]
    return sql


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sql=typed_statements(), nls=nls_settings)
def test_parsing_and_typing_in_one_pass_gives_the_references_result_or_declines(
    sql: str, nls: NlsSettings
) -> None:
    """parse_typed returns exactly what parse_redo then typed_row return, or None; never a
    result where the reference raises or finds a column the table does not have."""
    fast = value_typing.parse_typed(sql, TABLE, nls)
    with implementation.pure_python():
        reference = _typed_statement(sql, nls)
    if fast is not None:
        assert (_shown(fast[0]), _shown(fast[1]), fast[2]) == reference


ONE_PASS_STATEMENTS = [
    render.insert("S", "T", list(COMMON_SHAPES[0].items())),
    render.update(
        "S",
        "T",
        [("V", "'x'"), ("NV", COMMON_SHAPES[1]["NV"])],
        [(c, v) for c, v in COMMON_SHAPES[0].items() if c not in ("V", "NV")]
        + [("IDS", "TO_DSINTERVAL('+01 02:03:04.500000')"), ("LTZ", "NULL")],  # IS NULL
        "AAAHyXAAEAAAAB7AAA",
    ),
    render.delete("S", "T", list(COMMON_SHAPES[0].items()), "AAAHyXAAEAAAAB7AAB"),
    # an ASCII value with a doubled quote beside a wider character: each string is canonical
    render.insert("S", "T", [("V", "'O''Neil'"), ("NV", "'\u0395\U0001f600'"), ("R", "NULL")]),
]


@pytest.mark.parametrize("sql", ONE_PASS_STATEMENTS, ids=["insert", "update", "delete", "wide"])
def test_parsing_and_typing_in_one_pass_reads_the_common_shapes_itself(
    monkeypatch: pytest.MonkeyPatch, sql: str
) -> None:
    with implementation.pure_python():
        expected = _typed_statement(sql, NlsSettings())
    assert isinstance(expected, tuple)
    calls = _reference_calls(monkeypatch)
    fast = value_typing.parse_typed(sql, TABLE, NlsSettings())
    assert fast is not None
    assert (_shown(fast[0]), _shown(fast[1]), fast[2]) == expected
    assert calls == ([] if "IDS" not in sql else ["IDS"])  # INTERVAL: the reference's


@pytest.mark.parametrize(
    "values",
    [
        "'',NULL",  # '' is NULL in Oracle
        "'a' || 'b''c',''''",  # a concatenation (the reference's), a lone quote
        "'x\ud83d\ude00y','\ud800'",  # surrogates in the text: the reference's
        "UNISTR('\\00E9'),'Unsupported Type'",
        "EMPTY_CLOB(),Unsupported Type",
    ],
)
def test_parsing_and_typing_in_one_pass_agrees_on_odd_string_values(values: str) -> None:
    sql = f'insert into "S"."T"("V","NV") values ({values});'
    with implementation.pure_python():
        reference = _typed_statement(sql, NlsSettings())
    fast = value_typing.parse_typed(sql, TABLE, NlsSettings())
    if isinstance(reference, tuple):
        assert fast is not None
        assert (_shown(fast[0]), _shown(fast[1]), fast[2]) == reference
    else:
        assert fast is None, reference


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ('insert into "S"."T"("V","ZZ") values (\'a\',\'b\');', "a column TABLE does not have"),
        ('insert into "S"."T"("D2") values (\'1.234\');', "the reference refuses the value"),
        ('insert into "S"."T"("V","R") values (\'O\'Neil\',NULL);', "an undoubled apostrophe"),
        ('delete from "S"."T";', "no WHERE clause: the reference's shape"),
        ('insert into "S"."T"("V") values (\'it\'\');', "a string without its end"),
        ('delete from "S"."T" where "X" IS NULL;', "XMLTYPE is not replicated: refused there"),
    ],
)
def test_parsing_and_typing_in_one_pass_declines_what_the_reference_decides(
    sql: str, why: str
) -> None:
    assert value_typing.parse_typed(sql, TABLE, NlsSettings()) is None, why


COLUMN_TWICE = [
    'insert into "S"."T"("V","V") values (\'a\',\'b\');',
    'update "S"."T" set "V" = \'a\', "V" = \'b\';',
    'delete from "S"."T" where "V" = \'a\' and "V" = \'b\';',
]


@pytest.mark.parametrize("sql", COLUMN_TWICE, ids=["insert", "update", "where"])
def test_a_column_named_twice_is_left_to_the_reference_by_both_scanners(sql: str) -> None:
    """Never Oracle's: the reference's relaxed reading decides (redo_parser._pairs)."""
    assert compiled is not None
    assert compiled.parse_strict(sql) is None
    assert value_typing.parse_typed(sql, TABLE, NlsSettings()) is None


def test_an_interrupt_while_typing_in_one_pass_is_not_swallowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def interrupted(*_args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(value_typing, "_typed_one", interrupted)
    with pytest.raises(KeyboardInterrupt):
        value_typing.parse_typed(
            'insert into "S"."T"("IDS") values (TO_DSINTERVAL(\'+01 02:03:04.5\'));',
            TABLE,
            NlsSettings(),
        )


# --- redo positions --------------------------------------------------------------------

hex_fields = st.one_of(
    st.integers(0, 2**40).map(lambda n: f"{n:x}"),
    st.integers(0, 2**16).map(lambda n: f"{n:08X}"),
    st.text(st.sampled_from("0123456789abcdefABCDEFxg_ +-."), max_size=18),
)
rs_ids = st.one_of(
    st.builds(
        lambda pad, prefix, a, b, c, tail: f"{pad}{prefix}{a}.{b}.{c}{tail}",
        st.sampled_from(["", " ", "\t", "\u00a0"]),
        st.sampled_from(["0x", "0X", "", "x"]),
        hex_fields,
        hex_fields,
        hex_fields,
        st.sampled_from(["", " ", "  \n", ".1", "\u2003"]),
    ),
    any_text,
)
ssns = st.one_of(st.integers(0, 2**32 + 1), st.integers(-(2**70), 2**70), st.just(True))


def _reference_position(rs_id: str, ssn: int) -> int | str:
    try:
        return RedoPosition.of(rs_id, ssn).packed()
    except ValueError as error:
        return f"ValueError: {error}"


@settings(max_examples=3000, deadline=None)
@given(rs_id=rs_ids, ssn=ssns)
def test_the_compiled_redo_position_is_the_references_or_declines(rs_id: str, ssn: int) -> None:
    assert compiled is not None
    fast = compiled.packed_redo_position(rs_id, ssn)
    assert fast is None or fast == _reference_position(rs_id, ssn)
    try:
        through_builder: int | str = packed_redo_position(rs_id, ssn)
    except ValueError as error:
        through_builder = f"ValueError: {error}"
    assert through_builder == _reference_position(rs_id, ssn)


@pytest.mark.parametrize(
    ("rs_id", "ssn"),
    [
        (" 0x000c5d.00000271.0010 ", 0),
        ("0x0073c9.000a4e4c.01d0", 7),
        ("0XFFFFFFFF.FFFFFFFF.FFFF", 2**32 - 1),
        ("0x0.0.0", 0),
        ("0x000000000000000001.2.3", 1),  # leading zeros beyond the width
    ],
)
def test_the_compiled_redo_position_reads_what_logminer_writes(rs_id: str, ssn: int) -> None:
    assert compiled is not None
    assert compiled.packed_redo_position(rs_id, ssn) == RedoPosition.of(rs_id, ssn).packed()


@pytest.mark.parametrize(
    ("rs_id", "ssn"),
    [
        ("0x100000000.0.0", 0),
        ("0x0.100000000.0", 0),
        ("0x0.0.10000", 0),
        ("0x0.0.0", 2**32),
        ("0x0.0.0", -1),
        ("0x1.2", 0),
        ("0x1.2.3.4", 0),
        ("0x1.2.g", 0),
        ("0x-1.2.3", 0),
    ],
)
def test_the_compiled_redo_position_leaves_what_is_out_of_range_to_the_reference(
    rs_id: str, ssn: int
) -> None:
    assert compiled is not None
    assert compiled.packed_redo_position(rs_id, ssn) is None
    with pytest.raises(ValueError, match=r"RS_ID|out of range|invalid literal"):
        packed_redo_position(rs_id, ssn)


def test_an_extension_built_from_older_code_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """A checkout updated without a rebuild has a module without the newer functions: the
    pure-Python reference runs, and the reason says how to rebuild."""
    older = type("Module", (), {n: None for n in implementation.FUNCTIONS if n != "columns_of"})
    monkeypatch.setattr(implementation.importlib, "import_module", lambda _name: older)
    monkeypatch.delenv("ORACDC_PARSER", raising=False)
    module, reason = implementation._load()
    assert module is None
    assert "no columns_of" in reason
    assert "./scripts/setup.sh" in reason


def test_columns_of_reads_a_copy_of_the_rows(tmp_path: Path) -> None:
    """A key whose __eq__ empties the list of rows while columns_of reads them (run apart:
    reading freed rows would crash the interpreter)."""
    script = tmp_path / "rows_cleared.py"
    script.write_text(
        "from extractor.parse import implementation\n"
        "class Key:\n"
        "    def __hash__(self): return hash('k')\n"
        "    def __eq__(self, other): rows.clear(); return False\n"
        "rows = [{Key(): 1} for _ in range(3)]\n"
        "print(implementation.compiled.columns_of(rows, ('k',)))\n",
        encoding="utf-8",
    )
    ran = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[[None, None, None]]"
