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

from extractor.dictionary import ColumnDef, TableDef
from tests.dbt.dbt_helpers import Change, StagingTable, number, varchar


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
# changes of one key inside one transaction (history: one version per key per commit)
HISTORY_TXN = pk_table("HISTORY_TXN", V, varchar("W", 3))
# the key column widened from NUMBER(10) to NUMBER(19) between phases, then re-snapshotted
KEY_TYPE = pk_table("KEY_TYPE", V)
KEY_TYPE_WIDE = TableDef(
    KEY_TYPE.owner,
    KEY_TYPE.name,
    (number("ID", 1, precision=19, nullable=False), V),
    KEY_TYPE.primary_key,
)
KEY_TYPE_KEYS = 8
# consolidation exactness (docs/dbt.md "Rules"): multi-row key updates, late older changes of
# partial images, a delete cutting a dropped column, table reset markers; *_SOFT: soft deletes
KEY_UPDATES = pk_table("KEY_UPDATES", V)
KEY_UPDATES_SOFT = pk_table("KEY_UPDATES_SOFT", V)
LATE_PARTIAL = pk_table(
    "LATE_PARTIAL", varchar("A", 2), varchar("B", 3), varchar("C", 4), logging="PRIMARY KEY"
)
TRUNCATED = pk_table("TRUNCATED", V)
TRUNCATED_SOFT = pk_table("TRUNCATED_SOFT", V)
RESNAPSHOT = pk_table("RESNAPSHOT", V)
RESNAPSHOT_SOFT = pk_table("RESNAPSHOT_SOFT", V)
LATE_RESET = pk_table("LATE_RESET", V)
EXACTNESS_SOFT_TABLES = (KEY_UPDATES_SOFT, TRUNCATED_SOFT, RESNAPSHOT_SOFT)
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
    DROPPED_COLUMN, BUCKETS, EMPTIED, DEPARTMENTS, EMPLOYEES, HISTORY_TXN, KEY_TYPE,
    KEY_UPDATES, KEY_UPDATES_SOFT, LATE_PARTIAL, TRUNCATED, TRUNCATED_SOFT, RESNAPSHOT,
    RESNAPSHOT_SOFT, LATE_RESET,
)  # fmt: skip

BUCKET_KEYS = 40
TOUCHED_BUCKET_KEY = 7


def scenario_phase1() -> dict[TableDef, list[Change]]:
    """Batch 1 of every scenario table (the replicas are built from it first)."""
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
        DROPPED_COLUMN: [
            Change("c", 100, row(1, v="a", gone="last value")),
            Change("c", 100, row(3, v="a", gone="value before the drop")),
        ],
        BUCKETS: [Change("c", 100, row(k, v="initial")) for k in range(BUCKET_KEYS)],
        EMPTIED: [Change("c", 100, row(1, v="only key"))],
        HISTORY_TXN: [
            # 1: two updates in the transaction committed at 200: only the last is a version
            Change("c", 100, row(1, v="inserted", w="w0")),
            Change("u", 190, row(1, v="never committed", w="w0"), commit_scn=200),
            Change("u", 195, row(1, v="committed at 200", w="w0"), commit_scn=200),
            # 2: inserted and deleted in one transaction: never existed outside it
            Change("c", 300, row(2, v="never committed", w="w0"), commit_scn=310),
            Change("d", 305, row(2, v="never committed", w="w0"), commit_scn=310),
            # 3: updated, then deleted in one transaction: the update was never seen
            Change("c", 100, row(3, v="inserted", w="w0")),
            Change("u", 190, row(3, v="never committed", w="w0"), commit_scn=200),
            Change("d", 195, row(3, v="never committed", w="w0"), commit_scn=200),
            # 4: deleted and re-inserted in one transaction: one new version
            Change("c", 100, row(4, v="inserted", w="w0")),
            Change("d", 190, row(4, v="inserted", w="w0"), commit_scn=200),
            Change("c", 195, row(4, v="re-inserted", w="w1"), commit_scn=200),
            # 5: two partial images in one transaction merge into its one version
            Change("c", 100, row(5, v="v0", w="w0")),
            Change("u", 190, row(5, v="v1"), present=("id", "v"), commit_scn=200),
            Change("u", 190, row(5, w="w1"), present=("id", "w"), commit_scn=200, redo_pos=1),
            # 6: a partial image after a delete: the delete cut every column (w unknown)
            Change("c", 100, row(6, v="v0", w="w0")),
            Change("d", 200, row(6, v="v0", w="w0")),
            Change("u", 300, row(6, v="after the delete"), present=("id", "v")),
        ],
        KEY_TYPE: [Change("c", 100, row(k, v="NUMBER(10)")) for k in range(KEY_TYPE_KEYS)],
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
        **exactness_phase1(),
    }


def scenario_phase2() -> dict[TableDef, list[Change]]:
    """Batch 2 of every scenario table (after the schema changes of History.phase2)."""
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
            # a delete cuts every column: the re-inserted key 3 does not get "gone" back
            Change("d", 220, row(3, v="a"), batch=2),
            Change("c", 230, row(3, v="re-inserted"), batch=2),
        ],
        BUCKETS: [Change("u", 200, row(TOUCHED_BUCKET_KEY, v="updated"), batch=2)],
        EMPTIED: [Change("d", 200, row(1, v="only key"), batch=2)],
        KEY_TYPE: [
            Change("r", 200, row(k, v="re-snapshot as NUMBER(19)"), batch=2)
            for k in range(KEY_TYPE_KEYS)
        ],
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
        **exactness_phase2(),
    }


def key_update(scn: int, moves: list[tuple[int, int]], batch: int) -> list[Change]:
    """One UPDATE of the key of several rows (one SCN): per row, at increasing redo positions, a
    delete of the old key and an upsert of the new one from the same ROWID (change_builder)."""
    return [
        Change(op, scn, row(key, v=f"row R{old}"), redo_pos=position, batch=batch, row_id=f"R{old}")
        for position, (old, new) in enumerate(moves, start=1)
        for op, key in (("d", old), ("u", new))
    ]


def snapshot_rows(scn: int, ids: range | list[int], v: str = "", batch: int = 1) -> list[Change]:
    return [Change("r", scn, row(k, v=v or f"row R{k}"), row_id=f"R{k}", batch=batch) for k in ids]


def marker(scn: int, batch: int) -> Change:
    """A table reset marker (TRUNCATE, or a re-snapshot at (S, S, 0))."""
    return Change("t", scn, {}, present=(), batch=batch)


def exactness_phase1() -> dict[TableDef, list[Change]]:
    key_updates = [
        *snapshot_rows(100, [1, 2, 3, 10, 11, 21, 22, 23]),
        # update t set id = id + 1, consolidated in the same run as the snapshot
        *key_update(150, [(21, 22), (22, 23), (23, 24)], batch=1),
    ]
    before_truncate = [Change("c", 100, row(k, v="before the truncate")) for k in (1, 2, 3)]
    before_resnapshot = [
        *snapshot_rows(100, [1, 2, 3]),
        Change("u", 110, row(2, v="at 110"), row_id="R2"),
    ]
    return {
        KEY_UPDATES: key_updates,
        KEY_UPDATES_SOFT: key_updates,
        LATE_PARTIAL: [
            # R1: log-only partial image; an older snapshot and an older change land later
            Change("u", 200, row(1, a="a at 200"), present=("id", "a"), row_id="R1"),
            # R2: full image, then a newer partial; an older partial lands later
            Change("r", 100, row(2, a="a1", b="b1", c="c1"), row_id="R2"),
            Change("u", 120, row(2, b="b at 120"), present=("id", "b"), row_id="R2"),
        ],
        TRUNCATED: before_truncate,
        TRUNCATED_SOFT: before_truncate,
        RESNAPSHOT: before_resnapshot,
        RESNAPSHOT_SOFT: before_resnapshot,
        LATE_RESET: [
            *[Change("c", 100, row(k, v="before the truncate")) for k in (1, 2)],
            Change("c", 300, row(3, v="inserted after the truncate")),
            Change("c", 310, row(1, v="inserted again after the truncate")),
        ],
    }


def exactness_phase2() -> dict[TableDef, list[Change]]:
    key_updates = [
        *key_update(200, [(1, 2), (2, 3), (3, 4)], batch=2),
        *key_update(210, [(10, 11), (11, 10)], batch=2),  # a swap of two keys
    ]
    after_truncate = [
        marker(150, batch=2),
        Change("c", 160, row(2, v="after the truncate"), batch=3),
        Change("c", 160, row(4, v="new key after the truncate"), batch=3),
        Change("u", 140, row(3, v="older than the truncate"), batch=3),  # landed late
    ]
    # key 3 was deleted during a redo gap (no d row); the re-snapshot at 200 no longer has it
    resnapshot = [*snapshot_rows(200, [1, 2], v="re-snapshot", batch=2), marker(200, batch=3)]
    return {
        KEY_UPDATES: key_updates,
        KEY_UPDATES_SOFT: key_updates,
        LATE_PARTIAL: [
            Change("r", 150, row(1, a="snap", b="snap", c="snap"), row_id="R1", batch=2),
            Change("u", 180, row(1, b="b at 180"), present=("id", "b"), row_id="R1", batch=2),
            Change("u", 110, row(2, a="a at 110"), present=("id", "a"), row_id="R2", batch=2),
        ],
        TRUNCATED: after_truncate,
        TRUNCATED_SOFT: after_truncate,
        RESNAPSHOT: resnapshot,
        RESNAPSHOT_SOFT: resnapshot,
        LATE_RESET: [marker(200, batch=2)],  # older than the changes at 300 and 310
    }


@dataclass
class Landing:
    """The staging tables of the scenarios and what each phase lands."""

    staging: Mapping[TableDef, StagingTable] = field(
        default_factory=lambda: {t: StagingTable(t) for t in TABLES}
    )

    def phase1(self, spark: object) -> None:
        for table, changes in scenario_phase1().items():
            self.staging[table].land(spark, changes)

    def phase2(self, spark: object) -> None:
        """Batch 2, after a column was added to ADDED_COLUMN and EMPLOYEES and dropped from
        DROPPED_COLUMN (its staging table re-created without it), and KEY_TYPE's key widened."""
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
        # a key type change: staging never changes a type in place (docs/landing.md), so the
        # staging table is replaced by one of the new type, and the table re-snapshotted
        spark.sql(f"drop table {self.staging[KEY_TYPE].name}")  # type: ignore[attr-defined]
        self.staging = {**self.staging, KEY_TYPE: StagingTable(KEY_TYPE_WIDE)}
        for table, changes in scenario_phase2().items():
            self.staging[table].land(spark, changes)
