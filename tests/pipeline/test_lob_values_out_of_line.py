"""A LOB value written out of line: LogMiner shows the INSERT and the SEL_LOB_LOCATOR /
LOB_WRITE rows without a ROWID, and an INTERNAL row without a table name carries it
(docs/transactions.md §2). On the simulator (``lob_out_of_line_chars``), through the
production extractor and its V$LOGMNR_CONTENTS query: each row lands under its own ROWID with
its other columns; the LOB writes, which are not assembled, are quarantined."""

from __future__ import annotations

from pathlib import Path

from extractor.config import config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.logminer_row import NO_ROW_ID, OperationCode
from extractor.sim.database import SimDatabase
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate

DOCS = TableDef(
    "APP",
    "DOCS",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("TITLE", 2, "VARCHAR2", 40),
        ColumnDef("BODY", 3, "CLOB", 4000),
    ),
    ("ID",),
)


def test_rows_whose_lob_is_written_out_of_line_land_under_their_own_rowid(
    tmp_path: Path,
) -> None:
    db = SimDatabase()
    db.create_table(DOCS)
    db.lob_out_of_line_chars = 20
    config = config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.DOCS"], "data_dir": "data",
         "staging_schema": "t_lob_out_of_line", "error_policy": "warn"},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    txn = db.begin()
    long_one = txn.insert("APP", "DOCS", {"ID": 1, "TITLE": "long", "BODY": "x" * 2500})
    short_one = txn.insert("APP", "DOCS", {"ID": 2, "TITLE": "short", "BODY": "in line"})
    other_long = txn.insert("APP", "DOCS", {"ID": 3, "TITLE": "also long", "BODY": "y" * 30})
    txn.commit()

    extract_into_memory(db, config, writer)

    rows = db.logminer_contents(0, db.current_scn())
    internal = [r for r in rows if r.operation_code == OperationCode.INTERNAL]
    assert [(r.row_id, r.table_name) for r in internal] == [(long_one, None), (other_long, None)]
    assert all(r.row_id == NO_ROW_ID for r in rows if r.operation_code == OperationCode.INSERT)
    replica = consolidate(DOCS, writer.staged_rows(DOCS))
    assert {k[0]: (v["id"], v["title"]) for k, v in replica.items()} == {
        long_one: (1, "long"),
        short_one: (2, "short"),
        other_long: (3, "also long"),
    }
    assert replica[(short_one,)]["body"] == "in line"
    reasons = {r["reason"] for r in writer.quarantined_rows()}
    assert reasons == {"LOB operation SEL_LOB_LOCATOR is not supported",
                       "LOB operation LOB_WRITE is not supported"}  # fmt: skip
