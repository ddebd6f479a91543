"""StagingWriter against the shared local Spark session: create, evolve, append, read back.

Each module-scoped fixture lands its data once and reads it back in one round trip; the tests
then check one behaviour each on what came back. Every test runs under both landing modes:
Parquet files written by pyarrow (``auto``, the warehouse is local) and Spark appends.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pytest

from extractor.change_record import ChangeRecord
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import LandingError, StagingSchemaError
from extractor.land.audit_records import QuarantinedChange, SchemaChange
from extractor.land.change_batch import change_batch, snapshot_batch
from extractor.land.staging_writer import StagingWriter
from tests.land.records import EMP, EXTRACTED_AT, change

pytestmark = pytest.mark.spark

SCHEMA = "oracdc_land_test"

# One column per Spark type of the contract.
ALL_TYPES = TableDef(
    owner="APP",
    name="ALL_TYPES",
    columns=(
        ColumnDef("ID", 1, "NUMBER", data_precision=10, data_scale=0, nullable=False),
        ColumnDef("AMOUNT", 2, "NUMBER", data_precision=12, data_scale=3),
        ColumnDef("PLAIN", 3, "NUMBER"),
        ColumnDef("BORN", 4, "DATE"),
        ColumnDef("SEEN", 5, "TIMESTAMP(6) WITH TIME ZONE"),
        ColumnDef("BLOB_", 6, "RAW", data_length=16),
        ColumnDef("RATIO", 7, "BINARY_FLOAT"),
        ColumnDef("SCORE", 8, "BINARY_DOUBLE"),
        ColumnDef("NOTE", 9, "VARCHAR2", data_length=20),
    ),
    primary_key=("ID",),
)
ALL_TYPES_ROWS: list[dict[str, object]] = [
    {
        "ID": Decimal(1),
        "AMOUNT": Decimal("-123456789.125"),
        "PLAIN": "1.5E-130",
        "BORN": datetime(1999, 12, 31, 23, 59, 59),
        "SEEN": datetime(2024, 3, 31, 1, 30, 0, 123456, tzinfo=UTC),
        "BLOB_": b"\x00\xff\x10",
        "RATIO": float("nan"),
        "SCORE": float("inf"),
        "NOTE": "été",
    },
    {"ID": Decimal(2), "RATIO": float("-inf"), "SCORE": -0.5},
]


@pytest.fixture(scope="module", params=["auto", "spark"])
def landing(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def writer(spark: Any, landing: str) -> Iterator[StagingWriter]:
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")
    yield StagingWriter(spark, SCHEMA, landing=landing)
    spark.sql(f"DROP DATABASE IF EXISTS {SCHEMA} CASCADE")


@pytest.fixture(scope="module")
def all_types_landed(spark: Any, writer: StagingWriter) -> list[dict[str, Any]]:
    full, partial = ALL_TYPES_ROWS
    records = [
        _record(ALL_TYPES, "c", full, full_image=True, redo_pos=1),
        _record(ALL_TYPES, "u", partial, full_image=False, redo_pos=2),
    ]
    batch = change_batch(ALL_TYPES, records, batch_id=7, extracted_at=EXTRACTED_AT)
    writer.append(ALL_TYPES, batch)
    table = spark.sql(f"SELECT * FROM {SCHEMA}.app__all_types_log ORDER BY _redo_pos").toArrow()
    return list(table.to_pylist())


def test_staging_table_has_spark_types_of_the_contract(spark: Any, all_types_landed: Any) -> None:
    columns = {
        f.name: f.dataType.simpleString()
        for f in spark.table(f"{SCHEMA}.app__all_types_log").schema
    }

    assert columns == {
        "id": "decimal(10,0)",
        "amount": "decimal(12,3)",
        "plain": "string",
        "born": "timestamp_ntz",
        "seen": "timestamp",
        "blob_": "binary",
        "ratio": "float",
        "score": "double",
        "note": "string",
        "_op": "string",
        "_scn": "bigint",
        "_commit_scn": "bigint",
        "_redo_pos": "decimal(38,0)",
        "_rs_id": "string",
        "_ssn": "bigint",
        "_xid": "string",
        "_row_id": "string",
        "_commit_ts": "timestamp",
        "_present": "array<string>",
        "_batch_id": "bigint",
        "_extracted_at": "timestamp",
    }


def test_every_type_reads_back_equal(all_types_landed: list[dict[str, Any]]) -> None:
    row = all_types_landed[0]

    assert row["amount"] == Decimal("-123456789.125")
    assert row["plain"] == "1.5E-130"
    assert row["born"] == datetime(1999, 12, 31, 23, 59, 59)
    assert row["seen"] == datetime(2024, 3, 31, 1, 30, 0, 123456, tzinfo=UTC)
    assert row["blob_"] == b"\x00\xff\x10"
    assert row["note"] == "été"


def test_float_specials_read_back(all_types_landed: list[dict[str, Any]]) -> None:
    first, second = all_types_landed

    assert math.isnan(first["ratio"])
    assert (first["score"], second["ratio"], second["score"]) == (math.inf, -math.inf, -0.5)


def test_present_is_null_for_full_image_and_a_list_for_partial(
    all_types_landed: list[dict[str, Any]],
) -> None:
    assert [row["_present"] for row in all_types_landed] == [None, ["id", "ratio", "score"]]


def test_metadata_reads_back(all_types_landed: list[dict[str, Any]]) -> None:
    row = all_types_landed[1]

    assert (row["_op"], row["_batch_id"], row["_redo_pos"]) == ("u", 7, Decimal(2))
    assert row["_extracted_at"] == EXTRACTED_AT


EMP_V2 = replace(EMP, columns=(*EMP.columns, ColumnDef("BONUS", 4, "NUMBER", 6, 6, 0)))
EMP_V3 = replace(EMP_V2, columns=tuple(c for c in EMP_V2.columns if c.name != "NAME"))


@pytest.fixture(scope="module")
def evolved(spark: Any, writer: StagingWriter) -> tuple[list[str], list[dict[str, Any]]]:
    """HR.EMP landed three times: as created, after ADD BONUS, after DROP NAME."""
    snapshot = pa.RecordBatch.from_pydict(
        {
            "id": pa.array([Decimal(1)], pa.decimal128(10, 0)),
            "name": pa.array(["Ann"]),
            "salary": pa.array([Decimal("1.00")], pa.decimal128(8, 2)),
            "_row_id": pa.array(["AAAR3sAAEAAAACXAAA"]),
        }
    )
    writer.append(
        EMP,
        snapshot_batch(
            EMP,
            snapshot,
            snapshot_scn=50,
            snapshot_ts=EXTRACTED_AT,
            batch_id=1,
            extracted_at=EXTRACTED_AT,
        ),
    )
    bonus = {"ID": Decimal(2), "NAME": "Bob", "SALARY": None, "BONUS": Decimal(5)}
    writer.append(EMP_V2, _batch(EMP_V2, bonus, batch_id=2))
    writer.append(EMP_V3, _batch(EMP_V3, {"ID": Decimal(3), "BONUS": Decimal(6)}, batch_id=3))
    frame = spark.sql(f"SELECT * FROM {SCHEMA}.hr__emp_log ORDER BY _batch_id")
    return frame.columns, frame.toArrow().to_pylist()


def test_added_column_is_appended_to_the_staging_table(evolved: Any) -> None:
    columns, _ = evolved

    assert columns[:3] == ["id", "name", "salary"]
    assert columns[-1] == "bonus"


def test_rows_landed_before_a_column_was_added_hold_null_in_it(evolved: Any) -> None:
    _, rows = evolved

    assert [row["bonus"] for row in rows] == [None, Decimal(5), Decimal(6)]


def test_dropped_source_column_stays_and_gets_nulls(evolved: Any) -> None:
    _, rows = evolved

    assert [row["name"] for row in rows] == ["Ann", "Bob", None]


def test_snapshot_rows_land_as_reads(evolved: Any) -> None:
    _, rows = evolved

    assert (rows[0]["_op"], rows[0]["_scn"], rows[0]["_row_id"]) == ("r", 50, "AAAR3sAAEAAAACXAAA")


def test_changed_column_type_is_refused(evolved: Any, writer: StagingWriter) -> None:
    widened = replace(
        EMP_V3,
        columns=tuple(
            replace(c, data_precision=12) if c.name == "SALARY" else c for c in EMP_V3.columns
        ),
    )

    with pytest.raises(StagingSchemaError, match="salary"):
        writer.ensure_table(widened)


def test_landed_rows_counts_and_missing_table_counts_zero(
    evolved: Any, writer: StagingWriter
) -> None:
    assert writer.landed_rows(EMP) == 3
    assert writer.landed_rows(replace(EMP, name="NEVER_LANDED")) == 0


@pytest.fixture(scope="module")
def audit(spark: Any, writer: StagingWriter) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    quarantined = QuarantinedChange(
        owner="HR",
        table_name="EMP",
        scn=300,
        xid="0a001b00c4030000",
        rs_id="0x000c5d.00000271.0010",
        ssn=1,
        operation_code=255,
        reason="UNSUPPORTED operation",
        sql_redo="Unsupported",
    )
    ddl = SchemaChange(
        ddl="ALTER TABLE HR.EMP ADD (BONUS NUMBER(6))",
        owner="HR",
        table_name="EMP",
        scn=310,
        commit_scn=311,
        applied=True,
    )
    written = (
        writer.append_errors([quarantined], batch_id=20, extracted_at=EXTRACTED_AT),
        writer.append_schema_history([ddl], batch_id=21, extracted_at=EXTRACTED_AT),
    )
    assert written == (1, 1)
    errors = spark.sql(f"SELECT * FROM {SCHEMA}._oracdc_errors").toArrow().to_pylist()
    history = spark.sql(f"SELECT * FROM {SCHEMA}._oracdc_schema_history").toArrow().to_pylist()
    return errors, history


def test_quarantined_change_keeps_its_raw_text_and_position(audit: Any) -> None:
    errors, _ = audit

    assert errors == [
        {
            "owner": "HR",
            "table_name": "EMP",
            "scn": 300,
            "xid": "0a001b00c4030000",
            "rs_id": "0x000c5d.00000271.0010",
            "ssn": 1,
            "operation_code": 255,
            "reason": "UNSUPPORTED operation",
            "sql_redo": "Unsupported",
            "batch_id": 20,
            "extracted_at": EXTRACTED_AT,
        }
    ]


def test_schema_history_records_ddl_and_whether_it_was_applied(audit: Any) -> None:
    _, history = audit

    assert history == [
        {
            "ddl": "ALTER TABLE HR.EMP ADD (BONUS NUMBER(6))",
            "owner": "HR",
            "table_name": "EMP",
            "scn": 310,
            "commit_scn": 311,
            "applied": True,
            "batch_id": 21,
            "extracted_at": EXTRACTED_AT,
        }
    ]


def test_max_batch_id_spans_staging_and_audit_tables(
    all_types_landed: Any, evolved: Any, audit: Any, writer: StagingWriter
) -> None:
    assert writer.max_batch_id() == 21


def test_max_commit_scn_spans_the_staging_tables_not_the_audit_tables(
    all_types_landed: Any, evolved: Any, audit: Any, writer: StagingWriter
) -> None:
    # change rows commit at 105, the snapshot at 50; the schema history's DDL at 311
    assert writer.max_commit_scn() == 105


def test_a_batch_lands_as_one_file_even_under_a_rows_per_file_cap(
    spark: Any, writer: StagingWriter
) -> None:
    """One file per table and batch is what makes a batch appear whole to a concurrent dbt
    run (a job commit moves it in one rename); a session cap on rows per file must not split
    it, and stays the session's setting afterwards."""
    table = replace(EMP, name="ONE_FILE")
    records = [
        _record(table, "c", {"ID": n, "NAME": f"n{n}", "SALARY": None}, full_image=True,
                redo_pos=n)
        for n in range(25)
    ]  # fmt: skip
    spark.conf.set("spark.sql.files.maxRecordsPerFile", "10")
    try:
        writer.append(table, change_batch(table, records, batch_id=12, extracted_at=EXTRACTED_AT))
        assert spark.conf.get("spark.sql.files.maxRecordsPerFile") == "10"
    finally:
        spark.conf.unset("spark.sql.files.maxRecordsPerFile")
    files = spark.sql(
        f"SELECT count(DISTINCT f) AS n FROM (SELECT input_file_name() AS f, _batch_id "
        f"FROM {SCHEMA}.hr__one_file_log) WHERE _batch_id = 12"
    ).collect()[0]["n"]
    assert (writer.landed_rows(table), files) == (25, 1)


def test_auto_landing_writes_the_parquet_file_itself(
    spark: Any, writer: StagingWriter, landing: str
) -> None:
    table = replace(EMP, name="WHO_WROTE")
    records = [_record(table, "c", {"ID": 1, "NAME": "a", "SALARY": None}, full_image=True,
                       redo_pos=1)]  # fmt: skip
    writer.append(table, change_batch(table, records, batch_id=13, extracted_at=EXTRACTED_AT))
    names = [
        row["f"].rsplit("/", 1)[-1]
        for row in spark.sql(
            f"SELECT DISTINCT input_file_name() AS f FROM {SCHEMA}.hr__who_wrote_log"
        ).collect()
    ]
    assert len(names) == 1
    assert names[0].startswith("part-oracdc-") == (landing == "auto")


def test_empty_batch_writes_nothing(writer: StagingWriter) -> None:
    assert writer.append(EMP, change_batch(EMP, [], batch_id=99, extracted_at=EXTRACTED_AT)) == 0


def test_a_batch_with_a_column_the_table_lacks_is_refused_before_anything_lands(
    writer: StagingWriter,
) -> None:
    batch = _batch(EMP, {"ID": 1, "NAME": "x", "SALARY": None}, batch_id=98)
    surprising = batch.append_column("no_such_column", pa.array([1], pa.int64()))
    with pytest.raises(
        LandingError, match=r"carries columns the table lacks: \['no_such_column'\]"
    ):
        writer.append(EMP, surprising)


def _record(
    table: TableDef, op: Any, values: dict[str, object], *, full_image: bool, redo_pos: int
) -> ChangeRecord:
    return change(
        op, values, full_image=full_image, redo_pos=redo_pos, owner=table.owner, table=table.name
    )


def _batch(table: TableDef, values: dict[str, object], *, batch_id: int) -> pa.Table:
    record = _record(table, "c", values, full_image=True, redo_pos=batch_id)
    return change_batch(table, [record], batch_id=batch_id, extracted_at=EXTRACTED_AT)
