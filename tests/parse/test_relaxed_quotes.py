"""Recovery of apostrophes Oracle did not double (Debezium's "relaxed quote detection")."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.dictionary import ColumnDef, TableDef
from extractor.parse import RedoParseError, parse_redo, relaxed_quotes
from extractor.parse.relaxed_quotes import parse_relaxed
from tests.parse.two_strings_table import TWO_STRINGS


def table(*names: str, key: tuple[str, ...] = ()) -> TableDef:
    columns = tuple(ColumnDef(n, i + 1, "VARCHAR2") for i, n in enumerate(names))
    return TableDef("O", "T", columns, primary_key=key, supplemental_logging="PRIMARY KEY")


def test_well_formed_statement_is_not_marked_recovered() -> None:
    assert parse_redo("""insert into "O"."T"("A") values ('it''s')""").recovered_quotes is False


def test_insert_value_with_a_lone_apostrophe_is_recovered() -> None:
    parsed = parse_redo("""insert into "O"."T"("ID","N") values ('1','O'Brien');""")
    assert parsed.recovered_quotes is True
    assert parsed.new["N"].string_value() == "O'Brien"
    assert parsed.new["ID"].string_value() == "1"


def test_recovered_literal_is_rendered_with_the_apostrophe_doubled() -> None:
    parsed = parse_redo("""insert into "O"."T"("N") values ('O'Brien')""")
    assert parsed.new["N"].text == "'O''Brien'"


def test_column_count_decides_between_one_value_and_two() -> None:
    # Read strictly this is two values; the single column says it is one.
    parsed = parse_redo("""insert into "O"."T"("N") values ('a','b')""")
    assert parsed.recovered_quotes is True
    assert parsed.new["N"].string_value() == "a','b"


def test_update_set_value_with_apostrophe_and_comma() -> None:
    parsed = parse_redo("""update "O"."T" set "N" = 'it's, ok' where "ID" = '1' and ROWID = 'R'""")
    assert parsed.new["N"].string_value() == "it's, ok"
    assert parsed.old["ID"].string_value() == "1"
    assert parsed.rowid == "R"


def test_where_value_before_and_is_read_as_more_columns() -> None:
    # 'O'Brien' and "ID" = '2' could also be the whole value of N: the reading with more
    # columns wins (Debezium's choice: a closing quote ends a value where it can).
    parsed = parse_redo("""delete from "O"."T" where "N" = 'O'Brien' and "ID" = '2'""")
    assert parsed.old["N"].string_value() == "O'Brien"
    assert parsed.old["ID"].string_value() == "2"


def test_logged_primary_key_in_where_decides_the_split() -> None:
    sql = """delete from "O"."T" where "N" = 'rock 'n' roll' and "ID" = '2'"""
    parsed = parse_redo(sql, table("ID", "N", key=("ID",)))
    assert parsed.old["N"].string_value() == "rock 'n' roll"
    assert parsed.old["ID"].string_value() == "2"


def test_trailing_rowid_predicate_is_never_part_of_a_value() -> None:
    parsed = parse_redo("""update "O"."T" set "N" = '5' where "N" = 'O'Brien' and ROWID = 'AAAB'""")
    assert parsed.old["N"].string_value() == "O'Brien"
    assert parsed.rowid == "AAAB"


def test_a_rowid_predicate_alone_in_where_is_never_part_of_a_value() -> None:
    # MINIMAL logging: WHERE names no column, only the ROWID; the value could otherwise run
    # to the ROWID's closing quote, a reading with as many columns
    parsed = parse_redo("""update "O"."T" set "N" = 'O'Brien's' WHERE rowid = 'AAAB';""")
    assert parsed.new["N"].string_value() == "O'Brien's"
    assert parsed.rowid == "AAAB"


def test_a_statement_older_than_the_logging_level_is_read_without_the_key() -> None:
    # written under MINIMAL logging (no key in WHERE), read with the dictionary's PRIMARY KEY
    sql = """update "O"."T" set "N" = 'O'Neil' where "N" IS NULL;"""
    parsed = parse_redo(sql, table("ID", "N", key=("ID",)))
    assert parsed.new["N"].string_value() == "O'Neil"
    assert parsed.old["N"].is_null


def test_a_split_that_gives_more_columns_wins() -> None:
    # "x'y', "B" = 'b'" could be one value of A, or A = x'y and B = b'.
    sql = """update "O"."T" set "A" = 'x'y', "B" = 'b'' where "ID" = '1'"""
    parsed = parse_redo(sql)
    assert parsed.new["A"].string_value() == "x'y"
    assert parsed.new["B"].string_value() == "b'"


def test_two_readings_with_as_many_columns_are_ambiguous() -> None:
    # Two values: ('a','b' , 'c') or ('a' , 'b','c').
    with pytest.raises(RedoParseError, match="ambiguous"):
        parse_redo("""insert into "O"."T"("A","B") values ('a','b','c')""")


def test_a_split_that_names_a_column_twice_is_not_a_reading() -> None:
    sql = """update "O"."T" set "A" = 'it', "A" = 'x'' where "ID" = '1'"""
    parsed = parse_redo(sql)
    assert parsed.new == {"A": parsed.new["A"]}
    assert parsed.new["A"].string_value() == """it', "A" = 'x'"""  # '' is one apostrophe


def test_dictionary_column_names_remove_an_ambiguity() -> None:
    sql = """update "O"."T" set "A" = 'x'y', "B" = 'b'' where "ID" = '1' and "A" = 'old'"""
    parsed = parse_redo(sql, table("A", "ID"))  # there is no column B
    assert parsed.new == {"A": parsed.new["A"]}
    assert parsed.new["A"].string_value() == """x'y', "B" = 'b'"""


def test_dictionary_can_be_looked_up_by_the_statement_table() -> None:
    sql = """update "O"."T" set "A" = 'x'y', "B" = 'b'' where "ID" = '1' and "A" = 'old'"""
    parsed = parse_redo(sql, tables={("O", "T"): table("A", "ID")})
    assert list(parsed.new) == ["A"]


def test_unrecoverable_statement_raises() -> None:
    with pytest.raises(RedoParseError):
        parse_redo("""insert into "O"."T"("A","B") values ('x'y)""")


# Values whose apostrophes Oracle left undoubled; no "''" inside (that reads as one
# apostrophe, a documented limit) and nothing that may follow a closing quote.
undoubled = st.text(alphabet="ab '", min_size=1, max_size=8).filter(lambda v: "''" not in v)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(undoubled, min_size=1, max_size=6))
def test_insert_with_undoubled_apostrophes_is_recovered_exactly(values: list[str]) -> None:
    columns = [f"C{i}" for i in range(len(values))]
    sql = (
        f"""insert into "O"."T"({",".join(f'"{c}"' for c in columns)}) """
        f"""values ({",".join(f"'{v}'" for v in values)});"""
    )
    parsed = parse_redo(sql)
    assert [lit.string_value() for lit in parsed.new.values()] == values
    assert parsed.recovered_quotes == any("'" in v for v in values)


def test_hopelessly_ambiguous_text_raises_quickly_instead_of_searching_forever() -> None:
    columns = ",".join(f'"C{i}"' for i in range(20))
    values = ",".join(["'x'y'"] * 10 + ["'a','b'"] * 60)
    with pytest.raises(RedoParseError):
        parse_redo(f"""insert into "O"."T"({columns}) values ({values})""")


# The graph search against the plain enumeration of every reading: same reading, or same
# error, on statements built from fragments that make undoubled apostrophes ambiguous.
FRAGMENTS = ["a", "b", "'", "', ", "' and ", ", ", " and ", '"A" = ', '"B" = ', "x'y", "''"]
fragment_values = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=5).map("".join)


@st.composite
def ambiguous_statements(draw: st.DrawFn) -> str:
    values = draw(st.lists(fragment_values, min_size=1, max_size=4))
    names = ["A", "B", "ID", "N"][: len(values)]
    kind = draw(st.sampled_from(["insert", "update", "delete"]))
    if kind == "insert":
        columns = ",".join(f'"{n}"' for n in names)
        return f"""insert into "O"."T"({columns}) values ({",".join(f"'{v}'" for v in values)})"""
    predicates = " and ".join(f""""{n}" = '{v}'""" for n, v in zip(names, values, strict=True))
    if kind == "delete":
        return f'delete from "O"."T" where {predicates}'
    return f"""update "O"."T" set "N" = '{draw(fragment_values)}' where {predicates}"""


def _enumerated(sql: str, dictionary: TableDef | None) -> object:
    """The rule stated plainly: every reading the grammar allows (depth first), the valid
    ones (with the key in WHERE when any has it), the one with the most columns; built on the
    reader's moves, not on its search."""
    reader = relaxed_quotes._Reader(sql, dictionary, None)
    reader.readings()  # sets the head, the dictionary and the column count up
    heads = {"insert": ("insert_value", relaxed_quotes._INSERT_HEAD)}
    heads |= {"update": ("set_column", relaxed_quotes._UPDATE_HEAD)}
    heads |= {"delete": ("where", relaxed_quotes._DELETE_HEAD)}
    state, head = heads[sql.split(" ", 1)[0]]
    match = head.match(sql)
    assert match is not None
    complete = []
    stack: list[tuple[Any, Any]] = [((state, match.end(), 0, ""), None)]
    while stack:
        node, items = stack.pop()
        for following, item, rowid in reader._moves(node):
            reading = items if item is None else (items, item)
            if following is not None:
                stack.append((following, reading))
            else:
                complete.append((reading, rowid))
    columns = [] if state != "insert_value" else list(range(reader.column_count))
    names = [f"C{i}" for i in columns] if columns else []
    key = frozenset(dictionary.primary_key if dictionary and state != "insert_value" else ())

    def valid(key_in_where: bool) -> list[Any]:
        reader.required_old = key if key_in_where else frozenset()
        return [
            reader._reading("INSERT", "O", "T", names, reading, rowid)
            for reading, rowid in complete
            if reader._valid(reading)
        ]

    readings = (valid(True) if key else []) or valid(False)
    if not readings:
        return ("error", "statement does not follow the SQL_REDO grammar")
    most = max(len(r.new) + len(r.old) for r in readings)
    best = [r for r in readings if len(r.new) + len(r.old) == most]
    if len(best) > 1:
        return ("error", "ambiguous: an undoubled apostrophe allows more than one split")
    return (list(best[0].new.values()), list(best[0].old.values()), best[0].rowid)


def _outcome(sql: str, table: TableDef | None) -> object:
    try:
        parsed = parse_relaxed(sql, table)
    except RedoParseError as error:
        return ("error", str(error).split(" (")[1].split(")")[0])
    return (list(parsed.new.values()), list(parsed.old.values()), parsed.rowid)


@settings(max_examples=1500, deadline=None)
@given(sql=ambiguous_statements(), with_table=st.booleans())
def test_the_graph_search_finds_what_the_enumeration_finds(sql: str, with_table: bool) -> None:
    dictionary = table("A", "B", "ID", "N", key=("ID",)) if with_table else None
    assert _outcome(sql, dictionary) == _enumerated(sql, dictionary)


def test_a_statement_without_the_logged_key_is_read_when_no_reading_has_it() -> None:
    """Under PRIMARY KEY logging every DELETE names the key, unless it was written before
    that level (found by the harness: logging raised while the process was down). The key
    rule decides between readings only when some reading has the key."""
    parsed = parse_redo(
        """delete from "O"."T" where "N" = 'O'Brien'""", table("ID", "N", key=("ID",))
    )
    assert parsed.old["N"].string_value() == "O'Brien"


def test_a_changed_column_has_its_old_value_in_where() -> None:
    """LogMiner's WHERE holds the old value of every column an UPDATE changes (all
    logging levels): a split that changes B without B in WHERE is not LogMiner's (found by
    review: it read A = x and B = y)."""
    sql = """update "O"."T" set "A" = 'x', "B" = 'y' where "ID" = '1' and "A" = 'O'Brien'"""
    parsed = parse_redo(sql, table("ID", "A", "B", key=("ID",)))
    assert list(parsed.new) == ["A"]
    assert parsed.new["A"].string_value() == """x', "B" = 'y"""
    assert parsed.old["A"].string_value() == "O'Brien"


def test_a_column_added_after_the_statement_is_not_required_in_where() -> None:
    """The dictionary may be newer than the statement: under ALL logging a column added
    since is not in an older statement's WHERE (found by the simulator: a DELETE before an
    ADD COLUMN was refused)."""
    columns = tuple(ColumnDef(n, i + 1, "VARCHAR2") for i, n in enumerate(("ID", "N", "ADDED")))
    newer = TableDef("O", "T", columns, primary_key=("ID",), supplemental_logging="ALL")
    parsed = parse_redo("""delete from "O"."T" where "ID" = '1' and "N" = 'O'Neil'""", newer)
    assert parsed.old["N"].string_value() == "O'Neil"


def test_an_update_without_where_is_recovered_too() -> None:
    """NO_ROWID_IN_STMT on a table of LOB columns only: no WHERE at all."""
    docs = TableDef("O", "T", (ColumnDef("DOC", 1, "CLOB"),), (), "ALL")
    parsed = parse_redo("""update "O"."T" set "DOC" = 'it's';""", docs)
    assert parsed.new["DOC"].string_value() == "it's"
    assert parsed.old == {}


def test_an_empty_string_is_never_a_value_of_a_recovered_reading() -> None:
    """Oracle's empty string is NULL, so LogMiner never writes '' as a value: a split that
    needs one is not a reading."""
    parsed = parse_redo("""insert into "O"."T"("A","B") values ('x'',''y','z')""")
    assert parsed.new["A"].string_value() == "x','y"
    assert parsed.new["B"].string_value() == "z"


@pytest.mark.parametrize("columns", [100, 400])
def test_a_wide_insert_with_an_apostrophe_is_read_in_linear_steps(columns: int) -> None:
    """Found by review: the INSERT graph had a node per (value, count) pair; nodes that
    cannot reach the last column for lack of commas are now dead at once."""
    names = ",".join(f'"C{i}"' for i in range(columns))
    values = ",".join(["'O'Brien'"] + [f"'v{i}'" for i in range(1, columns)])
    reader = relaxed_quotes._Reader(f'insert into "O"."T"({names}) values ({values})', None, None)
    (parsed,) = reader.readings()
    assert parsed.new["C0"].string_value() == "O'Brien"
    assert len(reader.graph) <= 3 * columns


def test_an_undoubled_apostrophe_inside_unistr_is_recovered() -> None:
    """Found by the simulator: national text is written as UNISTR('...'), and LogMiner
    leaves its apostrophes undoubled too."""
    sql = """insert into "O"."T"("ID","N") values ('1',UNISTR('\\00E9 O'Neil'))"""
    parsed = parse_redo(sql)
    assert parsed.recovered_quotes
    assert parsed.new["N"].text == "UNISTR('\\00E9 O''Neil')"
    assert parsed.new["ID"].string_value() == "1"


# --- a column named twice: never Oracle's, so never read as such ----------------------

_ABC = TWO_STRINGS
_SET_TWICE = (
    'update "APP"."T" set "A" = \'x\', "B" = \'y\', "B" = \'z\' where "ID" = \'1\' and '
    "\"A\" = 'a' and \"B\" = 'b' and ROWID = 'AAASEQAAEAAAACAAAA';"
)


def test_a_set_clause_naming_a_column_twice_is_an_ambiguity_with_its_readings() -> None:
    from extractor.errors import AmbiguousRedoError

    with pytest.raises(AmbiguousRedoError) as raised:
        parse_redo(_SET_TWICE, _ABC)
    readings = sorted(
        (r.new["A"].text, r.new["B"].text) for r in raised.value.readings
    )  # values as Oracle would have doubled them
    assert readings == [
        ("'x'", "'y'', \"B\" = ''z'"),
        ("'x'', \"B\" = ''y'", "'z'"),
    ]


@pytest.mark.parametrize(
    "sql",
    [
        'insert into "APP"."T"("A","A") values (\'x\',\'y\');',
        'delete from "APP"."T" where "A" = \'x\' and "A" = \'y\' and ROWID = \'AAAA\';',
        _SET_TWICE.replace(" and ROWID", " and \"A\" = 'q' and ROWID"),
    ],
)
def test_a_column_named_twice_is_never_read_as_the_last_value(sql: str) -> None:
    try:
        parsed = parse_redo(sql, _ABC)
    except RedoParseError:
        return
    for image in (parsed.new, parsed.old):  # a reading of the text, each column once
        assert "'y'" not in [literal.text for name, literal in image.items() if name == "A"]
