"""oracdc.yml loading: valid files load, every invalid one names its problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.config import load_config
from extractor.errors import ConfigError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "oracdc.yml"
    path.write_text(text, encoding="utf-8")
    return path


MINIMAL = """
source: {kind: replay, path: bundle}
tables: [HR.EMPLOYEES, "SALES.*"]
"""


def test_minimal_file_gets_defaults_and_paths_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL))
    assert config.source["path"] == str(tmp_path / "bundle")
    assert config.data_dir == tmp_path / "data"
    assert config.error_policy == "fail"
    assert config.staging_schema == "oracdc_staging"


def test_table_patterns_match_owner_and_table_case_insensitively(tmp_path: Path) -> None:
    tables = load_config(write(tmp_path, MINIMAL)).tables
    assert tables.matches("HR", "EMPLOYEES")
    assert tables.matches("sales", "orders")
    assert not tables.matches("HR", "JOBS")
    assert tables.owners == ("HR", "SALES")


def test_password_in_config_is_refused_with_the_fix(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "source: {kind: oracle, dsn: 'db:1521/X', user: U, password: hunter2}\ntables: [A.B]\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "password_env" in caught.value.one_line()
    assert "hunter2" not in caught.value.one_line()


def test_oracle_source_needs_a_password_source(tmp_path: Path) -> None:
    path = write(tmp_path, "source: {kind: oracle, dsn: 'db:1521/X', user: U}\ntables: [A.B]\n")
    with pytest.raises(ConfigError, match="password_env"):
        load_config(path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("source: {kind: mysql}\ntables: [A.B]\n", "source.kind"),
        ("source: {kind: replay, path: x}\ntables: []\n", "non-empty list"),
        ("source: {kind: replay, path: x}\ntables: ['A.B; drop table x']\n", "not OWNER.TABLE"),
        ("source: {kind: replay, path: x}\ntables: [A.B]\nerror_policy: ignore\n", "error_policy"),
        ("source: {kind: replay, path: x}\ntables: [A.B]\nstaging_schema: 'a b'\n", "staging"),
        ("source: {kind: replay, path: x}\ntables: [A.B]\nmining: {window: 5}\n", "mining"),
        ("source: {kind: replay, path: x}\ntables: [A.B]\nwhatever: 1\n", "unknown key"),
        ("source: {kind: replay}\ntables: [A.B]\n", "source.path"),
        ("[1, 2]\n", "mapping"),
        ("source: {kind: replay, path: x\n", "not valid YAML"),
    ],
)
def test_invalid_files_raise_a_config_error_naming_the_problem(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write(tmp_path, text))


def test_missing_file_says_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "nope.yml")
    assert "--config" in caught.value.one_line()


def test_a_wallet_alone_is_not_a_password_source_in_thin_mode(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "source: {kind: oracle, dsn: 'db:1521/X', user: U, wallet_dir: w}\ntables: [A.B]\n",
    )
    with pytest.raises(ConfigError, match="wallet_dir adds TLS"):
        load_config(path)


def test_transaction_retention_is_off_by_default_and_positive_when_set(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, MINIMAL)).mining.transaction_retention_scns is None
    text = MINIMAL + "mining: {transaction_retention_scns: %s}\n"
    assert load_config(write(tmp_path, text % "null")).mining.transaction_retention_scns is None
    assert load_config(write(tmp_path, text % "500000")).mining.transaction_retention_scns == (
        500_000
    )
    with pytest.raises(ConfigError, match="transaction_retention_scns must be positive"):
        load_config(write(tmp_path, text % "0"))


def test_full_dbt_builds_are_off_by_default_and_a_count_of_cycles_when_set(
    tmp_path: Path,
) -> None:
    assert load_config(write(tmp_path, MINIMAL)).dbt_full_build_every == 0
    text = MINIMAL + "dbt: {full_build_every: %s}\n"
    assert load_config(write(tmp_path, text % "100")).dbt_full_build_every == 100
    for bad in ("-1", "2.5", "true", "often"):
        with pytest.raises(ConfigError, match="full_build_every must be a whole number"):
            load_config(write(tmp_path, text % bad))
    with pytest.raises(ConfigError, match=r"unknown key.*under dbt: full_build_evry"):
        load_config(write(tmp_path, MINIMAL + "dbt: {full_build_evry: 3}\n"))


def test_exclude_removes_tables_the_patterns_select(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, MINIMAL + 'exclude: ["SALES.*_TMP", "sales.audit?"]\n'))
    tables = config.tables
    assert tables.matches("SALES", "ORDERS")
    assert not tables.matches("SALES", "ORDERS_TMP")
    assert not tables.matches("sales", "AUDIT1")
    assert tables.matches("SALES", "AUDIT10")
    assert tables.matches("HR", "EMPLOYEES")


@pytest.mark.parametrize(
    ("exclude", "message", "fix"),
    [
        ("exclude: [HR.EMPLOYEES]", "exclude removes HR.EMPLOYEES, which tables names", "drop"),
        ("exclude: [HR.*]", "exclude removes HR.EMPLOYEES, which tables names", "narrow"),
        ("exclude: SALES.TMP", "exclude must be a list", "e.g. exclude:"),
        ("exclude: [SALES]", "exclude entry 'SALES' is not OWNER.TABLE", None),
    ],
)
def test_a_bad_exclude_is_refused_in_one_line_with_the_fix(
    tmp_path: Path, exclude: str, message: str, fix: str | None
) -> None:
    with pytest.raises(ConfigError, match=message) as refused:
        load_config(write(tmp_path, MINIMAL + exclude + "\n"))
    if fix is not None:
        assert refused.value.fix and fix in refused.value.fix
