"""``columns:`` in oracdc.yml: parsing and its refusals, a table's resolved policy, the masks."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pytest

from extractor.column_policy import PLAIN, ColumnRules, parse_column_rules, resolve_policy
from extractor.config import load_config
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError
from extractor.keys import consolidation_key
from extractor.land.column_masking import (
    REDACTED_TEXT,
    mask_batch,
    masked_text,
    read_salt,
    value_text,
)
from tests.test_config import MINIMAL, write

EMP = TableDef(
    "HR",
    "EMPLOYEES",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("NAME", 2, "VARCHAR2", 50),
        ColumnDef("EMAIL", 3, "VARCHAR2", 80, nullable=False),
        ColumnDef("SALARY", 4, "NUMBER", 22, 10, 2),
        ColumnDef("HOME_PHONE", 5, "VARCHAR2", 20),
        ColumnDef("WORK_PHONE", 6, "VARCHAR2", 20),
    ),
    ("ID",),
)


def _rules(columns: object) -> ColumnRules:
    return parse_column_rules(columns, None, "oracdc.yml")


def test_an_exclude_list_with_patterns_and_masks_resolve_against_the_dictionary() -> None:
    rules = _rules({"hr.employees": {"exclude": ["salary", "*_PHONE"], "mask": {"email": "hash"}}})
    policy = resolve_policy(rules, EMP)
    assert policy.excluded == {"SALARY", "HOME_PHONE", "WORK_PHONE"}
    assert dict(policy.masks) == {"EMAIL": "hash"}
    assert policy.kept(EMP).column_names == ("ID", "NAME", "EMAIL")
    landed = policy.landed(EMP)
    assert landed.column("EMAIL") == ColumnDef("EMAIL", 3, "VARCHAR2", 64, nullable=False)
    assert landed.column("ID") == EMP.column("ID")
    assert policy.verified(EMP).column_names == ("ID", "NAME")


def test_an_include_list_keeps_only_what_it_names() -> None:
    policy = resolve_policy(_rules({"HR.*": {"include": ["ID", "NAME", "*PHONE"]}}), EMP)
    assert policy.kept(EMP).column_names == ("ID", "NAME", "HOME_PHONE", "WORK_PHONE")


def test_a_table_no_entry_names_lands_as_it_is() -> None:
    policy = resolve_policy(_rules({"SALES.*": {"exclude": ["X"]}}), EMP)
    assert policy is PLAIN and policy.landed(EMP) is EMP


@pytest.mark.parametrize(
    ("columns", "message", "fix"),
    [
        ({"HR.EMPLOYEES": {"mask": {"ID": "hash"}}}, "ID is a primary key column", "mask"),
        ({"HR.EMPLOYEES": {"exclude": ["I*"]}}, "ID is a primary key column", "include/exclude"),
        ({"HR.EMPLOYEES": {"include": ["NAME"]}}, "it cannot be excluded", "every key column"),
        ({"HR.EMPLOYEES": {"exclude": ["SALARIES"]}}, "has no column SALARIES", "ALL_TAB_COLUMNS"),
        (
            {"HR.EMPLOYEES": {"mask": {"EMAIL": "redact", "E*": "hash"}}},
            "EMAIL matches the masks hash and redact",
            "disjoint",
        ),
        (
            {"HR.EMP*": {"exclude": ["SALARY"]}, "HR.*": {"exclude": ["NAME"]}},
            "matches more than one columns entry: HR.EMP*, HR.*",
            "disjoint",
        ),
    ],
)
def test_an_entry_that_does_not_fit_the_table_is_refused(
    columns: object, message: str, fix: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("*", r"\*")) as raised:
        resolve_policy(_rules(columns), EMP)
    assert fix in (raised.value.fix or "")


def test_an_unknown_column_under_a_pattern_entry_is_not_an_error() -> None:
    policy = resolve_policy(_rules({"HR.*": {"exclude": ["SALARY", "BONUS"]}}), EMP)
    assert policy.excluded == {"SALARY"}


def test_the_file_keys_load(tmp_path: Path) -> None:
    text = MINIMAL + "columns: {HR.EMPLOYEES: {mask: {EMAIL: redact}}}\nmask_salt_env: MY_SALT\n"
    config = load_config(write(tmp_path, text))
    assert config.columns.salt_env == "MY_SALT"
    assert config.columns.rules[0].masks == (("EMAIL", "redact"),)
    assert not config.columns.hashes


@pytest.mark.parametrize(
    ("text", "message", "fix"),
    [
        ("columns: [HR.EMPLOYEES]", "columns must map OWNER.TABLE entries", "e.g. columns:"),
        ("columns: {HR: {exclude: [A]}}", "columns.HR: not OWNER.TABLE", None),
        ("columns: {HR.EMPLOYEES: {drop: [A]}}", "unknown key(s) drop", "include, exclude"),
        ("columns: {HR.EMPLOYEES: {}}", "must be a mapping with include", None),
        (
            "columns: {HR.EMPLOYEES: {include: [A], exclude: [B]}}",
            "include and exclude contradict",
            "keep one",
        ),
        ("columns: {HR.EMPLOYEES: {include: []}}", "include is empty", None),
        ("columns: {HR.EMPLOYEES: {exclude: A}}", "exclude must be a list", None),
        ("columns: {HR.EMPLOYEES: {exclude: [A-B]}}", "'A-B' is not a column name", None),
        ("columns: {HR.EMPLOYEES: {mask: [A]}}", "mask must map columns", "hash"),
        ("columns: {HR.EMPLOYEES: {mask: {A: md5}}}", "A: 'md5' is not a mask", "redact"),
        (
            "columns: {HR.EMPLOYEES: {exclude: [A], mask: {A: hash}}}",
            "A is masked but does not land",
            "needs no mask",
        ),
        (
            "columns: {HR.EMPLOYEES: {include: [ID], mask: {A: hash}}}",
            "A is masked but does not land",
            None,
        ),
        ("columns: {HR.JOBS: {exclude: [A]}}", "names a table that tables does not select", "add"),
        ("mask_salt_env: 'not a name'", "mask_salt_env must name an environment variable", None),
    ],
)
def test_a_bad_columns_entry_is_refused_in_one_line_with_the_fix(
    tmp_path: Path, text: str, message: str, fix: str | None
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(write(tmp_path, MINIMAL + text + "\n"))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)
    if fix is not None:
        assert fix in (raised.value.fix or "")


def test_the_hash_is_the_salted_sha256_of_the_value_text() -> None:
    salt = b"0123456789abcdef"
    # sha256 of b"0123456789abcdef\x1fann@example.com", computed outside the code under test
    expected = hashlib.sha256(b"0123456789abcdef\x1fann@example.com").hexdigest()
    assert masked_text("ann@example.com", "hash", salt) == expected
    assert masked_text("ann@example.com", "hash", b"another-salt-0123") != expected
    assert masked_text(None, "hash", salt) is None
    assert masked_text(Decimal("12.50"), "redact", salt) == REDACTED_TEXT
    assert masked_text(None, "redact", salt) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("x", "x"),
        (b"\x01\xab", "01ab"),
        (Decimal("12.50"), "12.5"),  # a change of scale keeps the hash
        (Decimal("12.500"), "12.5"),
        (Decimal("1.000E-7"), "0.0000001"),
        (Decimal("0E-10"), "0"),
        (Decimal("-0.00"), "0"),
        (Decimal("1E+2"), "100"),
        (Decimal("123456789012345678901234567890.5"), "123456789012345678901234567890.5"),
        (7, "7"),
        (1.5, "1.5"),
        (True, "true"),
        (date(2024, 2, 29), "2024-02-29"),
        (datetime(2024, 2, 29, 1, 2, 3, 4, tzinfo=UTC), "2024-02-29T01:02:03.000004+00:00"),
    ],
)
def test_each_type_hashes_by_one_text(value: object, text: str) -> None:
    assert value_text(value) == text


def test_a_batch_is_masked_column_by_column_into_the_landed_schema() -> None:
    data = pa.table({"id": pa.array([1, 2]), "email": pa.array(["a@x", None])})
    schema = pa.schema([("id", pa.int64()), ("email", pa.string())])
    salt = b"0123456789abcdef"
    masked = mask_batch(data, {"EMAIL": "hash"}, salt, schema)
    assert masked.schema == schema
    assert masked.column("email").to_pylist() == [masked_text("a@x", "hash", salt), None]
    assert masked.column("id").to_pylist() == [1, 2]


def test_a_missing_or_short_salt_is_refused_without_showing_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("SALT_FOR_TEST", raising=False)
    with pytest.raises(ConfigError, match="SALT_FOR_TEST is not set"):
        read_salt("SALT_FOR_TEST")
    monkeypatch.setenv("SALT_FOR_TEST", "short-secret")
    with pytest.raises(ConfigError, match="fewer than 16 characters") as raised:
        read_salt("SALT_FOR_TEST")
    assert "short-secret" not in str(raised.value) + (raised.value.fix or "")
    monkeypatch.setenv("SALT_FOR_TEST", "long-enough-secret")
    assert read_salt("SALT_FOR_TEST") == b"long-enough-secret"


def test_a_mask_pattern_leaves_excluded_columns_alone() -> None:
    rules = _rules({"HR.EMPLOYEES": {"exclude": ["HOME_PHONE"], "mask": {"*_PHONE": "hash"}}})
    assert dict(resolve_policy(rules, EMP).masks) == {"WORK_PHONE": "hash"}


DOCS = TableDef(
    "HR",
    "DOCS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("BODY", 2, "CLOB"),
        ColumnDef("NOTE", 3, "VARCHAR2", 20),
    ),
    ("ID",),
)


@pytest.mark.parametrize("entry", [{"exclude": ["BODY"]}, {"mask": {"BODY": "redact"}}])
def test_leaving_out_the_lob_of_a_rowid_keyed_table_keeps_it_keyed_by_rowid(
    entry: dict[str, object],
) -> None:
    """Its redo is what it is: a key update is not split into delete and upsert."""
    policy = resolve_policy(_rules({"HR.DOCS": entry}), DOCS)
    assert consolidation_key(DOCS) == ("_row_id",)
    for shape in (policy.kept(DOCS), policy.landed(DOCS), policy.verified(DOCS)):
        assert consolidation_key(shape) == ("_row_id",)
    assert consolidation_key(policy.landed(EMP)) == ("id",)
