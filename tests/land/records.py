"""Small tables and change records shared by the landing tests."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from extractor.change_record import ChangeRecord, Operation
from extractor.dictionary import ColumnDef, TableDef

EXTRACTED_AT = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
COMMIT_TS = datetime(2024, 5, 1, 11, 59, 30, tzinfo=UTC)


# HR.EMP(ID NUMBER(10) primary key, NAME VARCHAR2(30), SALARY NUMBER(8,2)).
EMP = TableDef(
    owner="HR",
    name="EMP",
    columns=(
        ColumnDef("ID", 1, "NUMBER", data_precision=10, data_scale=0, nullable=False),
        ColumnDef("NAME", 2, "VARCHAR2", data_length=30),
        ColumnDef("SALARY", 3, "NUMBER", data_precision=8, data_scale=2),
    ),
    primary_key=("ID",),
)


def change(
    op: Operation,
    values: Mapping[str, object],
    *,
    full_image: bool,
    scn: int = 100,
    commit_scn: int = 105,
    redo_pos: int = 7,
    rs_id: str | None = " 0x000c5d.00000271.0010 ",
    ssn: int | None = 0,
    xid: str | None = "0a001b00c4030000",
    row_id: str | None = "AAAR3sAAEAAAACXAAA",
    owner: str = "HR",
    table: str = "EMP",
) -> ChangeRecord:
    return ChangeRecord(
        op=op,
        owner=owner,
        table=table,
        scn=scn,
        commit_scn=commit_scn,
        redo_pos=redo_pos,
        rs_id=rs_id,
        ssn=ssn,
        xid=xid,
        row_id=row_id,
        commit_ts=COMMIT_TS,
        values=values,
        full_image=full_image,
    )
