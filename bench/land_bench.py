"""Landing throughput: change_batch + append of ChangeRecords, snapshot_batch + append of Arrow.

Usage: ``.venv/bin/python bench/land_bench.py [--rows 1000000] [--data-dir DIR]``. Starts its
own embedded Spark (local[2]); prints rows/s of each step. Table: 10 columns (4 DECIMAL,
3 STRING, 2 TIMESTAMP_NTZ, 1 DOUBLE), every change an update carrying 5 of them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa

from extractor.change_record import ChangeRecord
from extractor.dictionary import ColumnDef, TableDef
from extractor.lakehouse.spark_session import SparkSettings, get_spark
from extractor.land.change_batch import change_batch, snapshot_batch
from extractor.land.staging_writer import StagingWriter
from extractor.source.arrow_schema import snapshot_schema

TABLE = TableDef(
    owner="BENCH",
    name="ORDERS",
    columns=(
        ColumnDef("ID", 1, "NUMBER", data_precision=12, data_scale=0, nullable=False),
        ColumnDef("CUSTOMER_ID", 2, "NUMBER", data_precision=10, data_scale=0),
        ColumnDef("AMOUNT", 3, "NUMBER", data_precision=12, data_scale=2),
        ColumnDef("QTY", 4, "NUMBER", data_precision=6, data_scale=0),
        ColumnDef("STATUS", 5, "VARCHAR2", data_length=10),
        ColumnDef("NOTE", 6, "VARCHAR2", data_length=100),
        ColumnDef("CODE", 7, "CHAR", data_length=4),
        ColumnDef("CREATED", 8, "DATE"),
        ColumnDef("UPDATED", 9, "TIMESTAMP(6)"),
        ColumnDef("SCORE", 10, "BINARY_DOUBLE"),
    ),
    primary_key=("ID",),
)
EXTRACTED_AT = datetime(2024, 5, 1, tzinfo=UTC)
BATCH_ROWS = 100_000


def make_records(count: int) -> list[ChangeRecord]:
    base = datetime(2024, 1, 1)
    commit_ts = datetime(2024, 5, 1, tzinfo=UTC)
    return [
        ChangeRecord(
            op="u",
            owner="BENCH",
            table="ORDERS",
            scn=1_000 + n,
            commit_scn=1_000 + n,
            redo_pos=(n << 32) | 1,
            rs_id=" 0x000c5d.00000271.0010 ",
            ssn=1,
            xid="0a001b00c4030000",
            row_id="AAAR3sAAEAAAACXAAA",
            commit_ts=commit_ts,
            values={
                "ID": Decimal(n),
                "AMOUNT": Decimal(n % 10_000) / 100,
                "STATUS": "SHIPPED",
                "UPDATED": base + timedelta(seconds=n),
                "SCORE": n * 0.5,
            },
            full_image=False,
        )
        for n in range(count)
    ]


def make_snapshot(count: int) -> pa.Table:
    schema = snapshot_schema(TABLE)
    ids = pa.array(range(count), pa.int64())
    micros = pa.array(range(count), pa.int64())
    columns = {
        "id": ids.cast(pa.decimal128(19, 0)).cast(pa.decimal128(12, 0)),
        "customer_id": ids.cast(pa.decimal128(19, 0)).cast(pa.decimal128(10, 0), safe=False),
        "amount": pa.array([Decimal(n % 10_000) / 100 for n in range(count)], pa.decimal128(12, 2)),
        "qty": pa.array([Decimal(n % 100) for n in range(count)], pa.decimal128(6, 0)),
        "status": pa.array(["NEW"] * count),
        "note": pa.array(["some text of moderate length"] * count),
        "code": pa.array(["ABCD"] * count),
        "created": micros.cast(pa.timestamp("us")),
        "updated": micros.cast(pa.timestamp("us")),
        "score": ids.cast(pa.float64()),
        "_row_id": pa.array(["AAAR3sAAEAAAACXAAA"] * count),
    }
    return pa.Table.from_pydict(columns, schema=schema)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="land-bench-"))
    spark = get_spark(SparkSettings.from_environment(data_dir))
    writer = StagingWriter(spark, "land_bench")
    spark.sql("DROP TABLE IF EXISTS land_bench.bench__orders_log")
    writer.ensure_table(TABLE)
    warm = change_batch(TABLE, make_records(1_000), batch_id=0, extracted_at=EXTRACTED_AT)
    writer.append(TABLE, warm)

    records = make_records(args.rows)
    build = land = 0.0
    for batch_id, start in enumerate(range(0, args.rows, BATCH_ROWS), start=1):
        began = time.perf_counter()
        chunk = records[start : start + BATCH_ROWS]
        batch = change_batch(TABLE, chunk, batch_id=batch_id, extracted_at=EXTRACTED_AT)
        built = time.perf_counter()
        writer.append(TABLE, batch)
        build += built - began
        land += time.perf_counter() - built
    report("change_batch", args.rows, build)
    report("append (changes)", args.rows, land)
    report("change_batch + append", args.rows, build + land)

    snapshot = make_snapshot(args.rows)
    began = time.perf_counter()
    staged = snapshot_batch(
        TABLE,
        snapshot,
        snapshot_scn=1,
        snapshot_ts=EXTRACTED_AT,
        batch_id=1_000,
        extracted_at=EXTRACTED_AT,
    )
    built = time.perf_counter()
    writer.append(TABLE, staged)
    landed = time.perf_counter()
    report("snapshot_batch", args.rows, built - began)
    report("append (snapshot, one call)", args.rows, landed - built)
    report("snapshot_batch + append", args.rows, landed - began)
    spark.stop()


def report(step: str, rows: int, seconds: float) -> None:
    print(f"{step:32s} {rows:>9,d} rows {seconds:7.2f} s {rows / seconds:>12,.0f} rows/s")


if __name__ == "__main__":
    main()
