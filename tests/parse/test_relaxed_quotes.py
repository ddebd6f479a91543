"""Recovery of apostrophes Oracle did not double (Debezium's "relaxed quote detection")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.dictionary import ColumnDef, TableDef
from extractor.parse import RedoParseError, parse_redo, relaxed_quotes
from extractor.parse.relaxed_quotes import parse_relaxed


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
    sql = """update "O"."T" set "A" = 'x'y', "B" = 'b'' where "ID" = '1'"""
    parsed = parse_redo(sql, table("A", "ID"))  # there is no column B
    assert parsed.new == {"A": parsed.new["A"]}
    assert parsed.new["A"].string_value() == """x'y', "B" = 'b'"""


def test_dictionary_can_be_looked_up_by_the_statement_table() -> None:
    sql = """update "O"."T" set "A" = 'x'y', "B" = 'b'' where "ID" = '1'"""
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


def _outcome(sql: str, table: TableDef | None) -> object:
    try:
        parsed = parse_relaxed(sql, table)
    except RedoParseError as error:
        return ("error", str(error).split(" at position")[0].split("(")[-1])
    return (parsed.new, parsed.old, parsed.rowid)


@settings(max_examples=1500, deadline=None)
@given(sql=ambiguous_statements(), with_table=st.booleans())
def test_the_graph_search_finds_what_the_enumeration_finds(sql: str, with_table: bool) -> None:
    dictionary = table("A", "B", "ID", "N", key=("ID",)) if with_table else None
    fast = _outcome(sql, dictionary)
    original = relaxed_quotes._Reader._best
    try:
        relaxed_quotes._Reader._best = lambda self, start: (2, None, None)  # type: ignore[method-assign]
        enumerated = _outcome(sql, dictionary)
    finally:
        relaxed_quotes._Reader._best = original  # type: ignore[method-assign]
    if enumerated == ("error", "too many possible splits to decide)"):
        return  # the enumeration gave up where the graph search did not need to
    assert fast == enumerated


def test_a_reading_without_the_logged_key_in_where_is_refused() -> None:
    """Under PRIMARY KEY logging every DELETE names the key: a reading without it is not
    LogMiner's, however many columns it has."""
    with pytest.raises(RedoParseError):
        parse_redo("""delete from "O"."T" where "N" = 'O'Brien'""", table("ID", "N", key=("ID",)))
