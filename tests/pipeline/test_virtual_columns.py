"""Virtual columns are computed on read and absent from redo: the extractor leaves them out of
snapshots and change images alike, so no streamed row lands NULL where a snapshot had a value."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from extractor.dictionary import ColumnDef
from extractor.sim.dbapi import SimConnection
from extractor.source.oracle.dictionary import read_table
from tests.pipeline.test_extract_to_staging import (
    ITEMS,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    seed_database,
    staged_rows,
)

NAME_LENGTH = ColumnDef("NAME_LENGTH", 0, "NUMBER", 22, 5, 0)


def name_length(row: Mapping[str, object]) -> object:
    name = row["NAME"]
    return None if name is None else len(str(name))


@pytest.mark.spark
def test_a_virtual_column_is_neither_snapshotted_nor_landed_null(
    spark: Any, tmp_path: Path
) -> None:
    config = make_config(tmp_path, "t_extract_virtual")
    db, open_before = seed_database()
    open_before.rollback()
    db.add_virtual_column("APP", "ITEMS", NAME_LENGTH, name_length, 'LENGTH("NAME")')
    assert db.snapshot_rows("APP", "ITEMS", db.current_scn())[0]["NAME_LENGTH"] == 6
    run_cycle(spark, config, db, lambda e: e.snapshot())
    txn = db.begin()
    txn.insert("APP", "ITEMS", {"ID": 50, "NAME": "inserted later"})
    txn.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    rows = staged_rows(spark, config, ITEMS)
    assert "name_length" not in rows[0]
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn)


def test_the_dictionary_reader_leaves_virtual_columns_out() -> None:
    db, open_before = seed_database()
    open_before.rollback()
    db.add_virtual_column("APP", "ITEMS", NAME_LENGTH, name_length, 'LENGTH("NAME")')
    table = read_table(SimConnection(db).cursor(), "APP", "ITEMS")
    assert table.column_names == ("ID", "NAME", "QTY")
    assert db.table_with_virtual("APP", "ITEMS").column_names[-1] == "NAME_LENGTH"
