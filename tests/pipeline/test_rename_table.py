"""ALTER TABLE … RENAME TO of or into a replicated table's name.

A table renamed into a replicated name (the "build a copy, drop the table, rename the copy"
reload) brings rows that were never mined under that name: the table is snapshotted again.
A replicated table renamed away leaves its name without a table: a reset marker empties the
replica, as a DROP TABLE does. Rows written before a rename and mined after it carry the new
name (the online catalog's)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.parse.ddl_statements import table_rename
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.reference_replica import consolidate, differences, truth_by_key
from tests.pipeline.test_extract_to_staging import ITEMS, NOTES, make_config

ITEMS_NEW = TableDef("APP", "ITEMS_NEW", ITEMS.columns, ITEMS.primary_key, "ALL")
NOT_SELECTED = ["APP.ITEMS_*"]  # ITEMS_NEW and ITEMS_OLD are not replicated


def _cycle(config: OracdcConfig, db: SimDatabase, staging: MemoryStagingWriter) -> None:
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging) as extractor:
        extract_and_land(extractor, {})


def _insert(db: SimDatabase, table: str, *keys: int) -> None:
    txn = db.begin()
    for key in keys:
        txn.insert("APP", table, {"ID": key, "NAME": f"{table} {key}", "QTY": key})
    txn.commit()


def _replica(staging: MemoryStagingWriter) -> list[int]:
    return sorted(int(key[0]) for key in consolidate(ITEMS, staging.staged_rows(ITEMS)))


def _started(tmp_path: Path, schema: str) -> tuple[OracdcConfig, SimDatabase, MemoryStagingWriter]:
    db = SimDatabase()
    db.create_table(ITEMS)
    db.create_table(NOTES)
    _insert(db, "ITEMS", 1, 2)
    config = make_config(tmp_path, schema, exclude=NOT_SELECTED)
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)
    assert _replica(staging) == [1, 2]
    return config, db, staging


def _reload_by_rename(db: SimDatabase) -> None:
    """Build ITEMS_NEW, drop ITEMS, rename ITEMS_NEW to ITEMS, change it."""
    db.create_table(ITEMS_NEW)
    _insert(db, "ITEMS_NEW", 10, 11)
    db.drop_table("APP", "ITEMS")
    db.rename_table("APP", "ITEMS_NEW", "ITEMS")
    _insert(db, "ITEMS", 12)


def test_a_table_renamed_into_the_name_is_snapshotted_again(tmp_path: Path) -> None:
    """Mined after the rename, ITEMS_NEW's inserts are named ITEMS, but they precede the DROP
    of the old ITEMS, whose reset marker retires them: only a new snapshot has them."""
    config, db, staging = _started(tmp_path, "rename_into")
    _reload_by_rename(db)

    _cycle(config, db, staging)

    assert _replica(staging) == [10, 11, 12]
    table = db.table("APP", "ITEMS")
    expected = truth_by_key(table, db.truth("APP", "ITEMS", db.current_scn()))
    replica = consolidate(table, staging.staged_rows(table))
    assert differences(expected, replica) == []
    assert staging.quarantined_rows() == []


def test_rows_mined_before_the_rename_under_the_other_name_are_not_needed(
    tmp_path: Path,
) -> None:
    """A running extractor mines ITEMS_NEW's inserts before the rename, under a name it does
    not replicate: the snapshot after the rename has them."""
    config, db, staging = _started(tmp_path, "rename_into_running")
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging) as extractor:
        db.create_table(ITEMS_NEW)
        _insert(db, "ITEMS_NEW", 10, 11)
        extract_and_land(extractor, {})
        db.drop_table("APP", "ITEMS")
        db.rename_table("APP", "ITEMS_NEW", "ITEMS")
        extract_and_land(extractor, {})
        _insert(db, "ITEMS", 12)
        extract_and_land(extractor, {})

    assert _replica(staging) == [10, 11, 12]
    assert staging.quarantined_rows() == []


def test_a_table_renamed_away_leaves_an_empty_replica(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """ITEMS is renamed to ITEMS_OLD (not replicated) in the middle of a pass that mines
    ITEMS: its row 3, written before the rename and mined after it, is named ITEMS_OLD and
    carries ITEMS's OBJECT_ID. It is let go (not quarantined); the next pass mines the
    rename, whose reset marker empties the replica."""
    db = SimDatabase()
    db.create_table(ITEMS)
    db.create_table(NOTES)
    _insert(db, "ITEMS", 1, 2)
    windows = {"window_scns": 10, "min_window_scns": 10, "max_window_scns": 10}
    config = make_config(tmp_path, "rename_away", exclude=NOT_SELECTED, mining=windows)
    staging = MemoryStagingWriter(config.staging_schema)
    armed: list[bool] = []

    def rename_after_the_first_window(at: str) -> None:
        if at == "stream:after_checkpoint" and armed and not armed[0]:
            armed[0] = True
            db.rename_table("APP", "ITEMS", "ITEMS_OLD")
            _insert(db, "ITEMS_OLD", 4)

    source = open_source({"kind": "sim", "database": db})
    with open_extractor(
        config, source, None, writer=staging, fault=rename_after_the_first_window
    ) as extractor:
        extract_and_land(extractor, {})
        for key in range(1, 8):  # the first window's worth of other changes
            txn = db.begin()
            txn.insert("APP", "NOTES", {"ID": key, "TXT": f"note {key}"})
            txn.commit()
        _insert(db, "ITEMS", 3)
        armed.append(False)
        with caplog.at_level(logging.WARNING):
            extract_and_land(extractor, {})
            assert armed == [True]
            assert _replica(staging) == [1, 2]  # the rename is past this pass's target
            extract_and_land(extractor, {})

    assert _replica(staging) == []
    assert staging.quarantined_rows() == []
    let_go = [r.getMessage() for r in caplog.records if "renamed APP.ITEMS_OLD" in r.getMessage()]
    assert len(let_go) == 1


@pytest.mark.parametrize(
    ("statement", "renamed"),
    [
        ('alter table "APP"."ITEMS_NEW" rename to "ITEMS";', ("APP", "ITEMS_NEW", "ITEMS")),
        ("ALTER TABLE app.items_new RENAME TO items", ("APP", "ITEMS_NEW", "ITEMS")),
        ("alter table items_new rename to items", ("SEG", "ITEMS_NEW", "ITEMS")),
        ('alter table "App"."my t" rename to "Your T"', ("App", "my t", "Your T")),
        ("alter table app.a rename to app.b", ("APP", "A", "B")),
        ("rename items_new to items;", ("SEG", "ITEMS_NEW", "ITEMS")),
        ('RENAME "x" TO "Y"', ("SEG", "x", "Y")),
        ("/* swap */ alter table app.t_new rename to t", ("APP", "T_NEW", "T")),
        ("alter table items rename to items_old; -- nightly reload", ("SEG", "ITEMS", "ITEMS_OLD")),
        ("alter table a rename to b /* x */ ;\n", ("SEG", "A", "B")),
        ("rename äpp_t to übersicht", ("SEG", "ÄPP_T", "ÜBERSICHT")),
        ('ALTER TABLE "A"."T--x" RENAME TO "U"', ("A", "T--x", "U")),
    ],
)
def test_table_renames_are_read_with_oracles_name_rules(
    statement: str, renamed: tuple[str, str, str]
) -> None:
    assert table_rename(statement, "SEG") == renamed


@pytest.mark.parametrize(
    "statement",
    [
        "alter table app.items rename column name to title",
        "alter table app.items rename column name to title -- not the table",
        "alter table app.items rename constraint pk to items_pk",
        "alter table app.items rename partition p1 to p2",
        "alter index app.items_pk rename to items_key",
        "drop table app.items",
        "create table app.rename_to (id number)",
        None,
    ],
)
def test_other_ddl_renames_no_table(statement: str | None) -> None:
    assert table_rename(statement, "SEG") is None


def test_a_table_renamed_away_then_dropped_lands_nothing_under_its_old_name(
    tmp_path: Path,
) -> None:
    """ITEMS renamed to ITEMS_OLD, a new ITEMS created, ITEMS_OLD changed then dropped: the
    OBJECT_ID that was ITEMS's follows the rename, so ITEMS_OLD's rows (named ``BIN$…``
    once it is dropped) never land in ITEMS."""
    config, db, staging = _started(tmp_path, "rename_then_drop")
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging) as extractor:
        extract_and_land(extractor, {})
        db.rename_table("APP", "ITEMS", "ITEMS_OLD")
        db.create_table(ITEMS)
        _insert(db, "ITEMS", 10)
        _insert(db, "ITEMS_OLD", 99)
        db.drop_table("APP", "ITEMS_OLD")
        extract_and_land(extractor, {})

    assert _replica(staging) == [10]
    assert staging.quarantined_rows() == []
