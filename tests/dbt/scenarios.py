"""Hand-written staging data, one table per consolidation rule, landed in three phases.

Phase 1 lands batch 1 of every table; phase 2 lands batch 2 (and changes staging schemas);
phase 3 lands nothing. ``dbt run`` follows each phase. Values are chosen so that the expected
replica follows from the rule alone: e.g. the row that must win says so in its text.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

from dbt_helpers import Change, StagingTable, number, varchar

from extractor.dictionary import ColumnDef, TableDef


def pk_table(name: str, *columns: ColumnDef, logging: str = "ALL") -> TableDef:
    return TableDef(
        "CDC",
        name,
        (number("ID", 1, nullable=False), *columns),
        primary_key=("ID",),
        supplemental_logging=logging,  # type: ignore[arg-type]
    )


def row(id_: int, **values: object) -> dict[str, object]:
    return {"id": Decimal(id_), **values}


V = varchar("V", 2)

ORDERING = pk_table("ORDERING", V)
SNAPSHOTS = pk_table("SNAPSHOTS", V)
DUPLICATES = pk_table("DUPLICATES", V)
PARTIAL = pk_table(
    "PARTIAL", varchar("A", 2), varchar("B", 3), varchar("C", 4), logging="PRIMARY KEY"
)
DELETES = pk_table("DELETES", V)
SOFT_DELETES = pk_table("SOFT_DELETES", V)
NO_PK = TableDef("CDC", "NO_PK", (varchar("NAME", 1), number("QTY", 2)))
ADDED_COLUMN = pk_table("ADDED_COLUMN", V)
DROPPED_COLUMN = pk_table("DROPPED_COLUMN", V, varchar("GONE", 3))
BUCKETS = pk_table("BUCKETS", V)
EMPTIED = pk_table("EMPTIED", V)
DEPARTMENTS = TableDef(
    "HR",
    "DEPARTMENTS",
    (number("DEPARTMENT_ID", 1, nullable=False), varchar("DEPARTMENT_NAME", 2)),
    primary_key=("DEPARTMENT_ID",),
)
EMPLOYEES = TableDef(
    "HR",
    "EMPLOYEES",
    (
        number("EMPLOYEE_ID", 1, nullable=False),
        varchar("LAST_NAME", 2),
        ColumnDef("HIRE_DATE", 3, "DATE", 7),
        number("DEPARTMENT_ID", 4),
    ),
    primary_key=("EMPLOYEE_ID",),
)

TABLES = (
    ORDERING, SNAPSHOTS, DUPLICATES, PARTIAL, DELETES, SOFT_DELETES, NO_PK, ADDED_COLUMN,
    DROPPED_COLUMN, BUCKETS, EMPTIED, DEPARTMENTS, EMPLOYEES,
)  # fmt: skip

BUCKET_KEYS = 40
TOUCHED_BUCKET_KEY = 7


def _phase1() -> dict[TableDef, list[Change]]:
    return {
        ORDERING: [
            # landed newest-position-last on purpose: landing order must not matter
            Change("u", 100, row(1, v="change committed at 105"), commit_scn=105),
            Change("r", 102, row(1, v="snapshot at 102")),
            Change("u", 150, row(2, v="scn 150 in commit 200"), commit_scn=200),
            Change("u", 140, row(2, v="scn 140 in commit 200"), commit_scn=200),
            Change("u", 300, row(3, v="redo position 2"), redo_pos=2),
            Change("u", 300, row(3, v="redo position 1"), redo_pos=1),
        ],
        SNAPSHOTS: [
            Change("r", 100, row(1, v="snapshot")),
            Change("u", 110, row(1, v="updated after the snapshot")),
            Change("u", 130, row(2, v="change at 130")),
        ],
        DUPLICATES: [
            Change("c", 100, row(1, v="inserted")),
            Change("c", 100, row(1, v="inserted")),
            Change("u", 110, row(1, v="updated")),
        ],
        PARTIAL: [
            Change("c", 100, row(1, a="a1", b="b1", c="c1"), row_id="R1"),
            Change("u", 110, row(1, b=None), present=("id", "b"), row_id="R1"),
            Change("u", 120, row(1, c="c3"), present=("id", "c"), row_id="R1"),
            Change("c", 100, row(2, a="a1", b="b1", c="c1"), row_id="R2"),
            Change("u", 100, row(3, c="before the snapshot"), present=("id", "c"), row_id="R3"),
            Change("r", 150, row(3, a="snap", b="snap", c=None), row_id="R3"),
            Change("u", 100, row(4, a="only a"), present=("id", "a"), row_id="R4"),
        ],
        DELETES: [
            Change("c", 100, row(1, v="first")),
            Change("d", 110, row(1, v="first")),
            Change("c", 120, row(1, v="re-inserted")),
            Change("c", 100, row(2, v="deleted in batch 2")),
            Change("c", 100, row(3, v="deleted and re-inserted in batch 2")),
            Change("c", 100, row(4, v="deleted before a late snapshot")),
            Change("d", 200, row(4, v="deleted before a late snapshot")),
        ],
        SOFT_DELETES: [
            Change("c", 100, row(1, v="kept as deleted")),
            Change("c", 100, row(2, v="live")),
        ],
        NO_PK: [
            Change("c", 100, {"name": "same", "qty": Decimal(1)}, row_id="AAAR0A"),
            Change("c", 101, {"name": "same", "qty": Decimal(1)}, row_id="AAAR0B"),
        ],
        ADDED_COLUMN: [Change("c", 100, row(1, v="before the column was added"))],
        DROPPED_COLUMN: [Change("c", 100, row(1, v="a", gone="last value"))],
        BUCKETS: [Change("c", 100, row(k, v="initial")) for k in range(BUCKET_KEYS)],
        EMPTIED: [Change("c", 100, row(1, v="only key"))],
        DEPARTMENTS: [
            Change("r", 100, {"department_id": Decimal(10), "department_name": "Administration"})
        ],
        EMPLOYEES: [
            Change(
                "r",
                100,
                {
                    "employee_id": Decimal(100),
                    "last_name": "King",
                    "hire_date": dt.datetime(2003, 6, 17),
                    "department_id": Decimal(10),
                },
            )
        ],
    }


def _phase2() -> dict[TableDef, list[Change]]:
    return {
        SNAPSHOTS: [Change("r", 125, row(2, v="late snapshot at 125"), batch=2)],
        DUPLICATES: [Change("u", 110, row(1, v="updated"), batch=2)],
        PARTIAL: [Change("u", 130, row(2, a="a2"), present=("id", "a"), row_id="R2", batch=2)],
        DELETES: [
            Change("d", 200, row(2, v="deleted in batch 2"), batch=2),
            Change("d", 200, row(3, v="deleted and re-inserted in batch 2"), batch=2),
            Change("c", 210, row(3, v="back"), batch=2),
            Change("r", 150, row(4, v="late snapshot"), batch=2),
        ],
        SOFT_DELETES: [Change("d", 200, row(1, v="kept as deleted"), batch=2)],
        NO_PK: [Change("u", 200, {"name": "same", "qty": Decimal(2)}, row_id="AAAR0A", batch=2)],
        ADDED_COLUMN: [Change("c", 200, row(2, v="after", note="new column value"), batch=2)],
        DROPPED_COLUMN: [
            Change("u", 200, row(1, v="b"), batch=2),
            Change("c", 210, row(2, v="new key"), batch=2),
        ],
        BUCKETS: [Change("u", 200, row(TOUCHED_BUCKET_KEY, v="updated"), batch=2)],
        EMPTIED: [Change("d", 200, row(1, v="only key"), batch=2)],
        EMPLOYEES: [
            Change(
                "c",
                200,
                {
                    "employee_id": Decimal(101),
                    "last_name": "Kochhar",
                    "hire_date": dt.datetime(2005, 9, 21),
                    "department_id": Decimal(10),
                    "email": "NKOCHHAR",
                },
                batch=2,
            )
        ],
    }


@dataclass
class Landing:
    """The staging tables of the scenarios and what each phase lands."""

    staging: Mapping[TableDef, StagingTable] = field(
        default_factory=lambda: {t: StagingTable(t) for t in TABLES}
    )

    def phase1(self, spark: object) -> None:
        for table, changes in _phase1().items():
            self.staging[table].land(spark, changes)

    def phase2(self, spark: object) -> None:
        """Batch 2, after a column was added to ADDED_COLUMN and EMPLOYEES and dropped from
        DROPPED_COLUMN (its staging table re-created without it)."""
        self.staging[ADDED_COLUMN].add_column(spark, "note", "STRING")
        self.staging[EMPLOYEES].add_column(spark, "email", "STRING")
        dropped = self.staging[DROPPED_COLUMN]
        spark.sql(f"drop table {dropped.name}")  # type: ignore[attr-defined]
        narrower = TableDef(
            DROPPED_COLUMN.owner,
            DROPPED_COLUMN.name,
            DROPPED_COLUMN.columns[:2],
            DROPPED_COLUMN.primary_key,
        )
        self.staging = {**self.staging, DROPPED_COLUMN: StagingTable(narrower)}
        for table, changes in _phase2().items():
            self.staging[table].land(spark, changes)
