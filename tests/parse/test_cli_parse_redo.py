"""`oracdc parse-redo`: JSON Lines in, one JSON line per statement out."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from extractor.cli.main import main

INSERT = """insert into "HR"."EMP"("ID","NAME","HIRED","PIC") values """
INSERT += (
    """('7','O''Neil',TO_DATE('2003-06-17 00:00:00', 'YYYY-MM-DD HH24:MI:SS'),HEXTORAW('0aff'));"""
)
UPDATE = (
    """update "HR"."EMP" set "NAME" = 'x' where "ID" = '7' and "PIC" IS NULL and ROWID = 'AAAR';"""
)


def run(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> tuple[int, list[dict[str, object]]]:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    code = main(["parse-redo", *args])
    out = capsys.readouterr().out
    return code, [json.loads(line) for line in out.splitlines()]


def line(sql: str) -> str:
    return json.dumps({"sql_redo": sql})


def test_raw_insert_shows_unquoted_strings_and_verbatim_functions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, results = run(monkeypatch, capsys, [line(INSERT)], "--raw")
    assert code == 0
    assert results[0]["operation"] == "INSERT"
    assert (results[0]["schema"], results[0]["table"]) == ("HR", "EMP")
    assert results[0]["new"] == {
        "ID": "7",
        "NAME": "O'Neil",
        "HIRED": "TO_DATE('2003-06-17 00:00:00', 'YYYY-MM-DD HH24:MI:SS')",
        "PIC": "HEXTORAW('0aff')",
    }
    assert results[0]["old"] == {}


def test_raw_update_has_set_as_new_and_where_as_old_without_rowid(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _, results = run(monkeypatch, capsys, [line(UPDATE)])
    assert results[0]["new"] == {"NAME": "x"}
    assert results[0]["old"] == {"ID": "7", "PIC": None}
    assert results[0]["rowid"] == "AAAR"


def test_bad_line_gives_an_error_line_and_the_command_goes_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, results = run(
        monkeypatch, capsys, [line("delete from nowhere"), "not json", line(UPDATE)], "--raw"
    )
    assert code == 1
    assert "error" in results[0] and "position" in str(results[0]["error"])
    assert results[0]["position"] == len("delete from ")
    assert "error" in results[1]
    assert results[2]["operation"] == "UPDATE"


def test_dictionary_mode_types_values(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dictionary = tmp_path / "dictionary.json"
    dictionary.write_text(
        json.dumps(
            {
                "tables": [
                    {
                        "owner": "HR",
                        "table_name": "EMP",
                        "primary_key": ["ID"],
                        "columns": [
                            {
                                "column_name": "ID",
                                "column_id": 1,
                                "data_type": "NUMBER",
                                "data_precision": 6,
                                "data_scale": 2,
                            },
                            {"column_name": "NAME", "column_id": 2, "data_type": "VARCHAR2"},
                            {"column_name": "HIRED", "column_id": 3, "data_type": "DATE"},
                            {"column_name": "PIC", "column_id": 4, "data_type": "BLOB"},
                        ],
                    }
                ]
            }
        )
    )
    code, results = run(monkeypatch, capsys, [line(INSERT)], "--dictionary", str(dictionary))
    assert code == 0
    assert results[0]["new"] == {
        "ID": "7.00",
        "NAME": "O'Neil",
        "HIRED": "2003-06-17T00:00:00",
        "PIC": "0aff",
    }


def test_dictionary_mode_reports_a_table_it_does_not_know(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dictionary = tmp_path / "dictionary.json"
    dictionary.write_text('{"tables": []}')
    code, results = run(monkeypatch, capsys, [line(UPDATE)], "--dictionary", str(dictionary))
    assert code == 1
    assert "HR.EMP" in str(results[0]["error"])


def test_unreadable_dictionary_is_a_one_line_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    code = main(["parse-redo", "--dictionary", str(tmp_path / "missing.json")])
    assert code == 1
    assert "cannot read dictionary" in capsys.readouterr().err


def test_nls_file_changes_how_dates_are_read(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dictionary = tmp_path / "dictionary.json"
    dictionary.write_text(
        json.dumps(
            {
                "tables": [
                    {
                        "owner": "O",
                        "table_name": "T",
                        "columns": [
                            {"column_name": "D", "column_id": 1, "data_type": "TIMESTAMP(6)"}
                        ],
                    }
                ]
            }
        )
    )
    bundle = tmp_path / "bundle.json"
    bundle.write_text(
        json.dumps(
            {
                "format": "oracdc-replay/1",
                "nls": {"NLS_TIMESTAMP_FORMAT": "DD.MM.YYYY HH24:MI:SSXFF"},
            }
        )
    )
    sql = """insert into "O"."T"("D") values (TO_TIMESTAMP('31.12.1999 23:59:58.5'))"""
    code, results = run(
        monkeypatch, capsys, [line(sql)], "--dictionary", str(dictionary), "--nls", str(bundle)
    )
    assert code == 0
    assert results[0]["new"] == {"D": "1999-12-31T23:59:58.500000"}


def test_dictionary_mode_lists_unsupported_columns(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dictionary = tmp_path / "dictionary.json"
    columns = [
        {"column_name": "ID", "column_id": 1, "data_type": "NUMBER"},
        {"column_name": "X", "column_id": 2, "data_type": "VARCHAR2"},
    ]
    dictionary.write_text(
        json.dumps({"tables": [{"owner": "O", "table_name": "T", "columns": columns}]})
    )
    sql = """update "O"."T" set "X" = Unsupported Type where "ID" = '1.50'"""
    code, results = run(monkeypatch, capsys, [line(sql)], "--dictionary", str(dictionary))
    assert code == 0
    assert results[0]["new"] == {"X": None}
    assert results[0]["old"] == {"ID": "1.5"}
    assert results[0]["unsupported"] == ["X"]
