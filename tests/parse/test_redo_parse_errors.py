"""A statement that cannot be read raises RedoParseError with its raw text and position."""

from __future__ import annotations

import pytest

from extractor.errors import OracdcError
from extractor.parse import RedoParseError, parse_redo


@pytest.mark.parametrize(
    "sql",
    [
        "",
        "commit;",
        'DECLARE loc_c CLOB; BEGIN select "C" into loc_c from "O"."T" for update; END;',
        """insert into "O"."T"("A","B") values ('1')""",
        """insert into "O"."T"("A") values ('1'""",
        """update "O"."T" set "A" = '1' where""",
        """delete from "O"."T" where "A" = '1' and""",
        """delete from "O"."T" where "A" = 'unterminated""",
        """update "O"."T" set "A" = FOO('x' where "B" = '1'""",
    ],
)
def test_unreadable_statement_raises_parse_error(sql: str) -> None:
    with pytest.raises(RedoParseError) as caught:
        parse_redo(sql)
    assert caught.value.sql == sql
    assert 0 <= caught.value.position <= len(sql)


def test_parse_error_is_an_oracdc_error_with_a_fix() -> None:
    with pytest.raises(OracdcError) as caught:
        parse_redo("select 1 from dual")
    assert caught.value.fix


def test_position_points_past_the_readable_prefix() -> None:
    sql = """insert into "O"."T"("A","B") values ('1',@)"""
    with pytest.raises(RedoParseError) as caught:
        parse_redo(sql)
    assert caught.value.position == sql.index("@")


def test_message_names_the_position_and_quotes_the_text() -> None:
    with pytest.raises(RedoParseError) as caught:
        parse_redo("""delete from "O"."T" where "A" = #""")
    assert "position" in str(caught.value)
    assert "#" in str(caught.value)


def test_empty_statement_says_so() -> None:
    with pytest.raises(RedoParseError, match="empty statement"):
        parse_redo("   ")
