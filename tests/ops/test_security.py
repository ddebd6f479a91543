"""Secrets stay secret; identifiers designed to inject SQL are refused on both sides."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

import pytest

from extractor.cli.main import main
from extractor.config import config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError, OracleIdentifierError, SourceConnectionError, VerifyError
from extractor.source.oracle import connect as oracle_connect
from extractor.source.oracle.connect import read_password
from extractor.verify.digest_rows import BucketRange
from extractor.verify.replica_digest import ReplicaDigests, replica_table_name
from extractor.verify.source_digest import count_statement, digest_statement
from tests.ops.receivers import closed_port, silent_listener

SECRET = "S3cr3t-Pa55word-do-not-print"


def _oracle_config(tmp_path: Path, port: int, *extra: str) -> Path:
    """oracdc.yml of an Oracle source on 127.0.0.1:``port`` with the password in the env."""
    config = tmp_path / "oracdc.yml"
    source = ", ".join(
        (f"kind: oracle, dsn: '127.0.0.1:{port}/ORCL', user: C##ORACDC",
         "password_env: OPS_SECRET_PW", *extra)
    )  # fmt: skip
    config.write_text(f"source: {{{source}}}\ntables: [HR.*]\ndata_dir: data\n", encoding="utf-8")
    return config


def test_a_failing_run_never_prints_or_logs_the_password(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("OPS_SECRET_PW", SECRET)
    config = _oracle_config(tmp_path, closed_port())
    with caplog.at_level(logging.DEBUG):
        code = main(["stream", "--once", "--config", str(config)])
    output = capsys.readouterr()
    assert code == 1
    assert "cannot connect" in output.err  # the run did fail where the password is used
    log_file = tmp_path / "data" / "logs" / "oracdc.log"
    logged = log_file.read_text(encoding="utf-8")
    assert "cannot connect" in logged  # the file has the failure
    for text in (output.out, output.err, caplog.text, logged):
        assert SECRET not in text


def test_a_port_that_accepts_but_never_answers_fails_at_the_connect_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPS_SECRET_PW", SECRET)
    with silent_listener() as port:
        config = _oracle_config(tmp_path, port, "connect_timeout_seconds: 0.5")
        code = main(["stream", "--once", "--config", str(config)])
    assert code == 1
    assert "no answer within 0.5 s" in capsys.readouterr().err


def test_a_connection_made_after_the_deadline_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    closed = threading.Event()

    class LateConnection:
        def close(self) -> None:
            closed.set()

    def slow_connect(**params: object) -> LateConnection:
        time.sleep(0.5)  # the real one, in the connect thread only
        return LateConnection()

    monkeypatch.setattr(oracle_connect.oracledb, "connect", slow_connect)
    with pytest.raises(SourceConnectionError, match=r"no answer within 0\.1 s"):
        oracle_connect.connect("db:1521/ORCL", "U", "pw", timeout_seconds=0.1)
    assert closed.wait(5), "the late connection was left open"


@pytest.mark.parametrize("timeout", [0, -1, "soon", True])
def test_a_connect_timeout_that_is_not_a_positive_number_is_refused(timeout: object) -> None:
    raw = {
        "source": {"kind": "oracle", "dsn": "db:1521/ORCL", "user": "U", "password_env": "P",
                   "connect_timeout_seconds": timeout},
        "tables": ["HR.*"],
    }  # fmt: skip
    with pytest.raises(ConfigError, match="connect_timeout_seconds"):
        config_from_mapping(raw, base_dir=Path("."))


def _password_file(tmp_path: Path, mode: int) -> dict[str, str]:
    path = tmp_path / "pw"
    path.write_text(SECRET + "\n", encoding="utf-8")
    os.chmod(path, mode)
    return {"password_file": str(path)}


def test_an_owner_only_password_file_is_read_without_its_newline(tmp_path: Path) -> None:
    assert read_password(_password_file(tmp_path, 0o600)) == SECRET


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o610])
def test_a_password_file_open_to_group_or_others_is_refused(tmp_path: Path, mode: int) -> None:
    with pytest.raises(SourceConnectionError, match="group or others") as caught:
        read_password(_password_file(tmp_path, mode))
    assert SECRET not in caught.value.one_line()


def test_a_directory_is_not_a_password_file(tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o700)
    with pytest.raises(SourceConnectionError, match="not a regular file"):
        read_password({"password_file": str(tmp_path)})


def test_a_password_in_the_config_file_is_refused(tmp_path: Path) -> None:
    source = {"kind": "oracle", "dsn": "h/s", "user": "u", "password": SECRET}
    with pytest.raises(ConfigError, match="not allowed") as caught:
        config_from_mapping({"source": source, "tables": ["HR.*"]}, base_dir=tmp_path)
    assert SECRET not in caught.value.one_line()


@pytest.mark.parametrize(
    ("key", "value"),
    [("tables", ['HR.X"; DROP TABLE Y; --']), ("tables", ["HR.X;DROP"]),
     ("staging_schema", "a; drop"), ("staging_schema", "a`b")],
)  # fmt: skip
def test_config_names_designed_to_inject_sql_are_refused(
    tmp_path: Path, key: str, value: object
) -> None:
    raw = {"source": {"kind": "sim"}, "tables": ["HR.*"], key: value}
    with pytest.raises(ConfigError):
        config_from_mapping(raw, base_dir=tmp_path)


def _table(owner: str, name: str, column: str = "ID") -> TableDef:
    return TableDef(owner, name, (ColumnDef(column, 1, "NUMBER", 22, 10, 0),), (column,), "ALL")


@pytest.mark.parametrize(
    "table",
    [_table("HR", 'X"; DROP TABLE Y; --'), _table('H"R', "T"), _table("HR", "T", 'I"D')],
)
def test_a_dictionary_name_holding_a_quote_never_reaches_oracle_sql(table: TableDef) -> None:
    with pytest.raises(OracleIdentifierError):
        digest_statement(table, per_column=False)
    if '"' in table.owner + table.name:
        with pytest.raises(OracleIdentifierError):
            count_statement(table)


@pytest.mark.parametrize("schema", ["a; drop", "a`b", "x.y", ""])
def test_a_replica_schema_designed_to_inject_spark_sql_is_refused(schema: str) -> None:
    with pytest.raises(VerifyError, match="not a plain Spark identifier"):
        replica_table_name(schema, _table("HR", "T"))


def test_a_column_holding_a_backtick_never_reaches_spark_sql() -> None:
    class NoSpark:
        def table(self, name: str) -> object:
            pytest.fail(f"reached Spark with {name}")

    table = _table("HR", "T", "I`D")
    with pytest.raises(VerifyError):
        list(ReplicaDigests(NoSpark(), "oracdc").digests(table, BucketRange(0, 4095)))
