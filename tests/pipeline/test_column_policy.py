"""``columns:``: excluded columns never land, masked columns land masked, from the snapshot and
from the log alike, and a quarantined change of such a table keeps no statement or reason.

Runs the production extractor on the simulator, landing into in-memory staging tables."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from extractor.change_record import ChangeRecord
from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError, LandingError, SyncStepError
from extractor.land.audit_records import QuarantinedChange
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.fault_points import no_fault
from extractor.pipeline.lander import WITHHELD_REASON, Lander
from extractor.pipeline.stats_observer import StatsObserver
from extractor.pipeline.sync import extract_and_land
from extractor.pipeline.table_registry import TableRegistry
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.state.checkpoint import CheckpointStore
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate

SALT = "a-test-salt-of-enough-length"
PEOPLE = TableDef(
    "APP",
    "PEOPLE",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("NAME", 2, "VARCHAR2", 50),
        ColumnDef("EMAIL", 3, "VARCHAR2", 80),
        ColumnDef("SALARY", 4, "NUMBER", 22, 10, 2),
        ColumnDef("SSN", 5, "VARCHAR2", 11),
    ),
    ("ID",),
    "ALL",
)
OTHER = TableDef(
    "APP",
    "OTHER",
    (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("V", 2, "VARCHAR2", 20)),
    ("ID",),
    "ALL",
)
# Values that must never appear in anything landed.
SECRETS = ("ann@example.com", "bob@example.com", "123-45-6789", "987-65-4321", "4321.5", "99999.99")


def _sha256(text: str) -> str:
    """The documented hash: SHA-256 of salt, 0x1F, value text; lower-case hex."""
    return hashlib.sha256(SALT.encode() + b"\x1f" + text.encode()).hexdigest()


def _config(work: Path, columns: dict[str, Any]) -> OracdcConfig:
    return config_from_mapping(
        {
            "source": {"kind": "sim"},
            "tables": ["APP.*"],
            "columns": columns,
            "data_dir": "data",
            "staging_schema": "t_columns",
            "error_policy": "warn",
        },
        base_dir=work,
    )


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(PEOPLE)
    db.create_table(OTHER)
    txn = db.begin()
    txn.insert("APP", "PEOPLE", {"ID": 1, "NAME": "ann", "EMAIL": "ann@example.com",
                                 "SALARY": 4321.5, "SSN": "123-45-6789"})  # fmt: skip
    txn.insert("APP", "PEOPLE", {"ID": 2, "NAME": "bob", "EMAIL": None, "SALARY": None,
                                 "SSN": None})  # fmt: skip
    txn.insert("APP", "OTHER", {"ID": 1, "V": "plain"})
    txn.commit()
    return db


def _changes(db: SimDatabase) -> None:
    txn = db.begin()
    txn.update("APP", "PEOPLE", lambda row: row["ID"] == 2,
               {"EMAIL": "ann@example.com", "SSN": "987-65-4321", "SALARY": 99999.99})  # fmt: skip
    txn.insert("APP", "PEOPLE", {"ID": 3, "NAME": "cy", "EMAIL": "bob@example.com",
                                 "SALARY": 1, "SSN": None})  # fmt: skip
    txn.unsupported_change("APP", "PEOPLE")
    txn.unsupported_change("APP", "OTHER")
    txn.commit()


@pytest.fixture
def landed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryStagingWriter:
    monkeypatch.setenv("ORACDC_MASK_SALT", SALT)
    config = _config(
        tmp_path,
        {"APP.PEOPLE": {"exclude": ["SALARY"], "mask": {"EMAIL": "hash", "SSN": "redact"}}},
    )
    db = _database()
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)  # the snapshot
    _changes(db)
    extract_into_memory(db, config, writer)  # the log
    return writer


def test_excluded_columns_never_land_and_masked_ones_land_masked(
    landed: MemoryStagingWriter,
) -> None:
    rows = landed.staged_rows(PEOPLE)
    assert rows and all("salary" not in row for row in rows)
    by_op = sorted(
        (row["_op"], int(row["id"]), row["email"], row["ssn"]) for row in rows if row["_op"] != "t"
    )
    ann, bob = _sha256("ann@example.com"), _sha256("bob@example.com")
    assert by_op == [
        ("c", 3, bob, None),
        ("r", 1, ann, "*****"),
        ("r", 2, None, None),
        ("u", 2, ann, "*****"),  # the same value hashes the same from the log and a snapshot
    ]


def test_no_raw_value_of_an_excluded_or_masked_column_lands_anywhere(
    landed: MemoryStagingWriter,
) -> None:
    everything = repr(landed.staged_rows(PEOPLE)) + repr(landed.quarantined_rows())
    assert [secret for secret in SECRETS if secret in everything] == []
    assert "4321.5" not in everything and "99999.99" not in everything


def test_a_quarantined_change_of_such_a_table_keeps_no_statement_nor_reason(
    landed: MemoryStagingWriter,
) -> None:
    quarantined = {row["table_name"]: row for row in landed.quarantined_rows()}
    assert quarantined["PEOPLE"]["sql_redo"] is None
    assert quarantined["PEOPLE"]["reason"] == WITHHELD_REASON
    assert quarantined["OTHER"]["sql_redo"] is not None  # a table without a columns entry
    assert quarantined["OTHER"]["reason"] != WITHHELD_REASON


def test_the_landed_types_of_masked_columns_are_strings(landed: MemoryStagingWriter) -> None:
    columns = dict(landed._table_columns[landed.staging_table(PEOPLE)])
    assert columns["email"] == "STRING" and columns["ssn"] == "STRING"
    assert "salary" not in columns and columns["id"].startswith("DECIMAL")


def test_an_excluded_column_is_not_even_read_by_the_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _config(tmp_path, {"APP.PEOPLE": {"include": ["ID", "NAME"]}})
    source = open_source({"kind": "sim", "database": _database()})
    read: list[pa.Schema] = []
    original = source.snapshot_batches

    def spy(table: TableDef, *args: Any) -> Any:
        for batch in original(table, *args):
            read.append(batch.schema)
            yield batch

    monkeypatch.setattr(source, "snapshot_batches", spy)
    with open_extractor(config, source, None, writer=MemoryStagingWriter("t")) as extractor:
        extract_and_land(extractor, {})
    people = [s for s in read if "email" in s.names or "name" in s.names]
    assert people and all(not {"email", "salary", "ssn"} & set(s.names) for s in people)


def test_a_column_added_later_does_not_land_under_an_include_list(tmp_path: Path) -> None:
    config = _config(tmp_path, {"APP.PEOPLE": {"include": ["ID", "NAME"]}})
    db = _database()
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    db.add_column("APP", "PEOPLE", ColumnDef("PHONE", 6, "VARCHAR2", 20))
    txn = db.begin()
    txn.insert("APP", "PEOPLE", {"ID": 4, "NAME": "di", "PHONE": "555-0100"})
    txn.commit()
    extract_into_memory(db, config, writer)
    rows = landed_people = writer.staged_rows(PEOPLE)
    assert {int(row["id"]) for row in landed_people if row["_op"] != "t"} == {1, 2, 4}
    assert all(set(row) & {"phone", "email", "ssn", "salary"} == set() for row in rows)


def test_a_hash_mask_without_a_salt_is_refused_before_anything_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ORACDC_MASK_SALT", raising=False)
    config = _config(tmp_path, {"APP.PEOPLE": {"mask": {"EMAIL": "hash"}}})
    writer = MemoryStagingWriter(config.staging_schema)
    with pytest.raises(ConfigError, match="ORACDC_MASK_SALT is not set") as raised:
        extract_into_memory(_database(), config, writer)
    assert "secrets.token_hex" in (raised.value.fix or "")
    assert writer._batches == {}


def test_masking_a_primary_key_column_is_refused_when_the_table_is_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_MASK_SALT", SALT)
    config = _config(tmp_path, {"APP.PEOPLE": {"mask": {"ID": "hash"}}})
    writer = MemoryStagingWriter(config.staging_schema)
    with pytest.raises(SyncStepError, match=re.escape("ID is a primary key column of APP.PEOPLE")):
        extract_into_memory(_database(), config, writer)
    assert writer._batches == {}


def test_a_column_excluded_later_keeps_its_landed_values(tmp_path: Path) -> None:
    """Full images turn partial once the column no longer lands: the replica keeps SALARY."""
    db = _database()
    writer = MemoryStagingWriter("t_columns")
    extract_into_memory(db, _config(tmp_path, {}), writer)
    txn = db.begin()
    txn.update("APP", "PEOPLE", lambda row: row["ID"] == 1, {"NAME": "anne"})
    txn.commit()
    extract_into_memory(db, _config(tmp_path, {"APP.PEOPLE": {"exclude": ["SALARY"]}}), writer)
    replica = consolidate(PEOPLE, writer.staged_rows(PEOPLE))
    assert replica[(Decimal(1),)]["name"] == "anne"
    assert replica[(Decimal(1),)]["salary"] == Decimal("4321.50")


def test_a_renamed_masked_column_stops_the_stream_before_its_raw_values_land(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_MASK_SALT", SALT)
    config = _config(tmp_path, {"APP.PEOPLE": {"mask": {"EMAIL": "hash"}}})
    db = _database()
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
        db.drop_column("APP", "PEOPLE", "EMAIL")  # what RENAME COLUMN EMAIL TO E_MAIL does
        db.add_column("APP", "PEOPLE", ColumnDef("E_MAIL", 6, "VARCHAR2", 80))
        txn = db.begin()
        txn.insert("APP", "PEOPLE", {"ID": 9, "NAME": "eve", "E_MAIL": "eve@example.com"})
        txn.commit()
        with pytest.raises(SyncStepError, match=r"EMAIL \(excluded or masked\) left the table "
                           "while E_MAIL came") as raised:  # fmt: skip
            extract_and_land(extractor, {})
    assert "name E_MAIL in the table's columns entry" in (raised.value.fix or "")
    # a new process: the entry names a column the table no longer has
    with pytest.raises(SyncStepError, match=r"has no column EMAIL \(misspelt, dropped or renamed"):
        extract_into_memory(db, config, writer)
    assert "eve@example.com" not in repr(writer._batches)


def _lander(config: OracdcConfig, db: SimDatabase, writer: MemoryStagingWriter) -> Any:
    store = CheckpointStore(config.data_dir)
    source = open_source({"kind": "sim", "database": db})
    registry = TableRegistry(source, config.tables, config.columns)
    registry.resolve()
    return Lander(config, writer, store.__enter__(), registry, StatsObserver(config.data_dir),
                  now=lambda: datetime.now(UTC), fault=no_fault)  # fmt: skip


def test_a_quarantined_change_of_a_table_no_longer_known_is_withheld_by_name(
    tmp_path: Path,
) -> None:
    config = _config(tmp_path, {"APP.GONE": {"mask": {"SSN": "redact"}}})
    writer = MemoryStagingWriter(config.staging_schema)
    statement = 'insert into "APP"."GONE"("SSN") values (\'123-45-6789\')'
    gone = QuarantinedChange("APP", "GONE", 5, "x", "r", 1, 1, "table not found", statement)
    other = dataclasses.replace(gone, table_name="OTHER")
    _lander(config, _database(), writer).land_changes({}, [gone, other], [])
    rows = {row["table_name"]: row for row in writer.quarantined_rows()}
    assert rows["GONE"]["sql_redo"] is None and rows["GONE"]["reason"] == WITHHELD_REASON
    assert rows["OTHER"]["sql_redo"] == gone.sql_redo


def test_a_batch_that_fails_on_a_value_of_such_a_table_does_not_quote_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ORACDC_MASK_SALT", SALT)
    scores = TableDef("APP", "SCORES", (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
                      ColumnDef("S", 2, "BINARY_DOUBLE", 8)), ("ID",))  # fmt: skip
    db = SimDatabase()
    db.create_table(scores)
    config = _config(tmp_path, {"APP.SCORES": {"mask": {"S": "hash"}}})
    bad = ChangeRecord("c", "APP", "SCORES", 5, 5, 1, None, None, "x", "AAAA", None,
                       {"ID": Decimal(1), "S": "secret-text"}, True)  # fmt: skip
    lander = _lander(config, db, MemoryStagingWriter(config.staging_schema))
    with pytest.raises(LandingError) as raised:
        lander.land_changes({("APP", "SCORES"): [bad]}, [], [])
    assert "withheld" in str(raised.value) and "secret-text" not in str(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_an_entry_with_only_number_as_withholds_nothing(tmp_path: Path) -> None:
    config = _config(tmp_path, {"APP.PEOPLE": {"number_as": {"*": "double"}}})
    writer = MemoryStagingWriter(config.staging_schema)
    statement = 'insert into "APP"."PEOPLE"("ID") values (\'1\')'
    change = QuarantinedChange("APP", "PEOPLE", 5, "x", "r", 1, 1, "a reason", statement)
    _lander(config, _database(), writer).land_changes({}, [change], [])
    (row,) = writer.quarantined_rows()
    assert row["sql_redo"] == statement and row["reason"] == "a reason"
