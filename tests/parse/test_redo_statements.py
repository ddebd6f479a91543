"""parse_redo on the statement shapes LogMiner writes (docs/logminer.md §3)."""

from __future__ import annotations

import pytest

from extractor.parse import Literal, LiteralKind, RedoParseError, parse_redo


def raw(literals: dict[str, Literal] | object) -> dict[str, str | None]:
    assert isinstance(literals, dict)
    return {c: lit.string_value() for c, lit in literals.items()}


def test_insert_gives_values_in_column_order() -> None:
    parsed = parse_redo("""insert into "O"."T"("ID","N","C") values ('1','Bob''s',NULL);""")
    assert (parsed.operation, parsed.owner, parsed.table) == ("INSERT", "O", "T")
    assert list(parsed.new) == ["ID", "N", "C"]
    assert raw(parsed.new) == {"ID": "1", "N": "Bob's", "C": None}
    assert parsed.old == {}
    assert parsed.rowid is None


def test_update_splits_set_into_new_and_where_into_old() -> None:
    parsed = parse_redo(
        """update "O"."T" set "N" = 'x', "C" = NULL where "ID" = '1' and "C2" IS NULL """
        """and ROWID = 'AAASZHAAEAAAACXAAD';"""
    )
    assert parsed.operation == "UPDATE"
    assert raw(parsed.new) == {"N": "x", "C": None}
    assert raw(parsed.old) == {"ID": "1", "C2": None}
    assert parsed.rowid == "AAASZHAAEAAAACXAAD"


def test_delete_puts_the_where_clause_in_old() -> None:
    parsed = parse_redo(
        """delete from "O"."T" where "ID" = '1' and "N" = 'a' and ROWID = 'AAAB';"""
    )
    assert parsed.operation == "DELETE"
    assert parsed.new == {}
    assert raw(parsed.old) == {"ID": "1", "N": "a"}
    assert parsed.rowid == "AAAB"


def test_statement_without_rowid_and_without_semicolon() -> None:
    parsed = parse_redo("""delete from "O"."T" where "ID" = '1' and "N" IS NULL""")
    assert raw(parsed.old) == {"ID": "1", "N": None}
    assert parsed.rowid is None


def test_update_whose_where_clause_is_only_the_rowid() -> None:
    parsed = parse_redo("""update "O"."T" set "N" = '2' where ROWID = 'AAAC';""")
    assert raw(parsed.new) == {"N": "2"}
    assert parsed.old == {}
    assert parsed.rowid == "AAAC"


def test_is_null_and_equals_null_are_both_null() -> None:
    parsed = parse_redo("""update "O"."T" set "A" = NULL where "B" = NULL and "C" IS NULL""")
    assert parsed.new["A"].kind is LiteralKind.NULL
    assert parsed.old["B"].kind is LiteralKind.NULL
    assert parsed.old["C"].kind is LiteralKind.NULL


@pytest.mark.parametrize(
    "value",
    [
        "a' and 'b",
        "x = y",
        "a,b",
        "(",
        ")",
        "f(x);",
        "line1\nline2",
        "/* not a comment */",
        "Ünïcödé 阿狸",
        "' and ROWID = 'AAAA",
        '"COL" = 1',
        "",
    ],
)
def test_string_content_that_looks_like_grammar_stays_in_the_value(value: str) -> None:
    quoted = "'" + value.replace("'", "''") + "'"
    parsed = parse_redo(
        f"""update "O"."T" set "A" = {quoted}, "B" = 'z' where "K" = {quoted} and ROWID = 'R';"""
    )
    assert raw(parsed.new) == {"A": value, "B": "z"}
    assert raw(parsed.old) == {"K": value}
    assert parsed.rowid == "R"


@pytest.mark.parametrize(
    ("literal", "kind"),
    [
        ("TO_DATE('2003-06-17 00:00:00', 'YYYY-MM-DD HH24:MI:SS')", LiteralKind.FUNCTION),
        ("TO_TIMESTAMP('2020-02-01 00:00:00.')", LiteralKind.FUNCTION),
        ("TO_TIMESTAMP_TZ('2024-02-14 10:58:02.202590 +01:00')", LiteralKind.FUNCTION),
        ("TO_YMINTERVAL('-03-06')", LiteralKind.FUNCTION),
        ("TO_DSINTERVAL('-001 02:03:04.56')", LiteralKind.FUNCTION),
        ("HEXTORAW('0e')", LiteralKind.FUNCTION),
        ("UNISTR('\\963F\\72F8')", LiteralKind.FUNCTION),
        ("UNISTR('\\963F') || UNISTR('\\72F8')", LiteralKind.CONCAT),
        ("'ab' || UNISTR('\\00E9')", LiteralKind.CONCAT),
        ("EMPTY_CLOB()", LiteralKind.FUNCTION),
        ("EMPTY_BLOB()", LiteralKind.FUNCTION),
        ("-12.5E-3", LiteralKind.NUMBER),
        (".5", LiteralKind.NUMBER),
        ("Unsupported Type", LiteralKind.UNSUPPORTED),
        ("'it''s'", LiteralKind.STRING),
    ],
)
def test_each_literal_form_is_kept_verbatim_with_its_kind(literal: str, kind: LiteralKind) -> None:
    parsed = parse_redo(f"""insert into "O"."T"("A","B") values ({literal},'z');""")
    assert parsed.new["A"].text == literal
    assert parsed.new["A"].kind is kind
    assert parsed.new["B"].text == "'z'"


def test_verbatim_text_is_the_raw_value_of_non_string_literals() -> None:
    parsed = parse_redo("""insert into "O"."T"("A","B") values (HEXTORAW('0e'),7)""")
    assert raw(parsed.new) == {"A": "HEXTORAW('0e')", "B": "7"}


def test_unsupported_type_has_no_raw_value() -> None:
    parsed = parse_redo("""update "O"."T" set "X" = Unsupported Type where "ID" = '1'""")
    assert raw(parsed.new) == {"X": None}


def test_comment_before_a_value_is_not_part_of_it() -> None:
    parsed = parse_redo("""update "O"."T" set "A" = /* it's here */ 'v' where "K" = /*c*/ '1';""")
    assert raw(parsed.new) == {"A": "v"}
    assert raw(parsed.old) == {"K": "1"}


def test_identifiers_with_spaces_hash_and_doubled_quotes() -> None:
    parsed = parse_redo(
        """insert into "UNKNOWN"."OBJ# 74858"("COL 1","A""B","x-y") """
        """values (HEXTORAW('c102'),'1','2');"""
    )
    assert parsed.owner == "UNKNOWN"
    assert parsed.table == "OBJ# 74858"
    assert list(parsed.new) == ["COL 1", 'A"B', "x-y"]


def test_table_alias_prefix_on_columns_is_dropped() -> None:
    parsed = parse_redo(
        """update "O"."T" a set a."C1" = '5' where a."C2" = '6' and a."C3" IS NULL"""
    )
    assert raw(parsed.new) == {"C1": "5"}
    assert raw(parsed.old) == {"C2": "6", "C3": None}


def test_keywords_are_case_insensitive_and_whitespace_is_free() -> None:
    parsed = parse_redo("""  INSERT INTO "O"."T" ( "A" , "B" )\nVALUES ( '1' ,\n NULL ) ;  """)
    assert raw(parsed.new) == {"A": "1", "B": None}


def test_long_string_value_is_read_whole() -> None:
    value = "x'" * 3000
    quoted = "'" + value.replace("'", "''") + "'"
    parsed = parse_redo(f"""insert into "O"."T"("A") values ({quoted})""")
    assert parsed.new["A"].string_value() == value
    assert parsed.recovered_quotes is False


@pytest.mark.parametrize(
    "sql",
    [
        'delete from "S"."T";',
        'delete from "S"."T"',
        'DELETE FROM "S"."T" a ;',
    ],
)
def test_a_delete_without_where_carries_no_values(sql: str) -> None:
    """What a session with NO_ROWID_IN_STMT writes for a table of LOB columns only (the row
    is known by V$LOGMNR_CONTENTS.ROW_ID; Debezium reads it too: DBZ-3235)."""
    parsed = parse_redo(sql)
    assert (parsed.operation, parsed.owner, parsed.table) == ("DELETE", "S", "T")
    assert (dict(parsed.new), dict(parsed.old), parsed.rowid) == ({}, {}, None)


@pytest.mark.parametrize("tail", ["'", "'';", ";'", " ' ", "'''"])
def test_stray_apostrophes_after_the_values_list_are_ignored(tail: str) -> None:
    """Debezium's DBZ-4891 test reads ``values (...)'``; so do we."""
    parsed = parse_redo('insert into "S"."T"("A","B") values (\'x\',\'y\'\'\')' + tail)
    assert parsed.new == {"A": Literal("'x'"), "B": Literal("'y'''")}


@pytest.mark.parametrize(
    "sql",
    [
        'delete from "S"."T" where;',
        'delete from "S"."T" a b;',
        'insert into "S"."T"("A") values (\'x\'))',
        'insert into "S"."T"("A") values (\'x\')\' x',
    ],
)
def test_what_still_does_not_parse(sql: str) -> None:
    with pytest.raises(RedoParseError):
        parse_redo(sql)
