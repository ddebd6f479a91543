"""SQL_REDO without a WHERE clause: a LogMiner session with NO_ROWID_IN_STMT (as Debezium
starts its sessions, and as a replay bundle recorded by such a session holds) writes
``delete from "APP"."DOCS";`` for a table whose columns are all LOBs. The row is identified by
V$LOGMNR_CONTENTS.ROW_ID; the replica must lose it (Debezium parses such a statement too:
DBZ-3235)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import OperationCode
from tests.pipeline.test_extract_to_staging import (
    TABLES,
    assert_staging_matches_truth,
    make_config,
    run_cycle,
    seed_database,
)

pytestmark = pytest.mark.spark

DOCS = TableDef("APP", "DOCS", (ColumnDef("BODY", 1, "CLOB"),), (), "MINIMAL")


def test_a_delete_without_a_where_clause_removes_its_row(spark: Any, tmp_path: Path) -> None:
    config = make_config(tmp_path, "t_extract_no_where")
    db, open_before = seed_database()
    open_before.rollback()
    db.create_table(DOCS)
    setup = db.begin()
    setup.insert("APP", "DOCS", {"BODY": "kept"})
    setup.insert("APP", "DOCS", {"BODY": "deleted"})
    setup.commit()
    run_cycle(spark, config, db, lambda e: e.snapshot())
    db.rowid_in_statements = False
    txn = db.begin()
    txn.delete("APP", "DOCS", lambda row: row["BODY"] == "deleted")
    txn.commit()

    result = run_cycle(spark, config, db, lambda e: e.stream_once())

    rows = db.logminer_contents(result.mined_to_scn - 10**6, result.mined_to_scn)
    (delete,) = [r for r in rows if r.operation_code == OperationCode.DELETE]
    assert delete.sql_redo == 'delete from "APP"."DOCS";'
    assert delete.row_id
    assert_staging_matches_truth(spark, config, db, result.mined_to_scn, (*TABLES, DOCS))
