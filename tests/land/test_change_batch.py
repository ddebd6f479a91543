"""change_batch and snapshot_batch: the Arrow shape of a landing batch (staging contract)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from types import MappingProxyType

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from extractor.errors import LandingError
from extractor.land.change_batch import (
    _decimal_column,
    _values_by_column,
    change_batch,
    snapshot_batch,
)
from extractor.parse import implementation
from tests.land.records import COMMIT_TS, EMP, EXTRACTED_AT, change

UTC_US = pa.timestamp("us", tz="UTC")


def test_schema_is_source_columns_then_metadata_with_contract_types() -> None:
    batch = change_batch(EMP, [], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.schema == pa.schema(
        [
            ("id", pa.decimal128(10, 0)),
            ("name", pa.string()),
            ("salary", pa.decimal128(8, 2)),
            ("_op", pa.string()),
            ("_scn", pa.int64()),
            ("_commit_scn", pa.int64()),
            ("_redo_pos", pa.decimal128(38, 0)),
            ("_rs_id", pa.string()),
            ("_ssn", pa.int64()),
            ("_xid", pa.string()),
            ("_row_id", pa.string()),
            ("_commit_ts", UTC_US),
            ("_present", pa.list_(pa.string())),
            ("_batch_id", pa.int64()),
            ("_extracted_at", UTC_US),
        ]
    )


def test_full_image_carries_every_value_and_null_present() -> None:
    record = change(
        "c", {"ID": Decimal(1), "NAME": "Ann", "SALARY": Decimal("10.50")}, full_image=True
    )

    row = change_batch(EMP, [record], batch_id=3, extracted_at=EXTRACTED_AT).to_pylist()[0]

    assert row == {
        "id": Decimal(1),
        "name": "Ann",
        "salary": Decimal("10.50"),
        "_op": "c",
        "_scn": 100,
        "_commit_scn": 105,
        "_redo_pos": Decimal(7),
        "_rs_id": "0x000c5d.00000271.0010",
        "_ssn": 0,
        "_xid": "0a001b00c4030000",
        "_row_id": "AAAR3sAAEAAAACXAAA",
        "_commit_ts": COMMIT_TS,
        "_present": None,
        "_batch_id": 3,
        "_extracted_at": EXTRACTED_AT,
    }


def test_partial_image_lists_carried_columns_in_dictionary_order() -> None:
    record = change("u", {"SALARY": Decimal("2.00"), "ID": Decimal(1)}, full_image=False)

    batch = change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("_present").to_pylist() == [["id", "salary"]]


def test_column_not_carried_is_null_and_absent_from_present() -> None:
    record = change("d", {"ID": Decimal(9)}, full_image=False)

    batch = change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("name").to_pylist() == [None]
    assert batch.column("_present").to_pylist() == [["id"]]


def test_carried_null_is_null_and_listed_in_present() -> None:
    record = change("u", {"ID": Decimal(1), "NAME": None}, full_image=False)

    batch = change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("name").to_pylist() == [None]
    assert batch.column("_present").to_pylist() == [["id", "name"]]


def test_a_reset_marker_carries_no_column_and_an_empty_present() -> None:
    marker = change("t", {}, full_image=False, row_id=None)

    batch = change_batch(EMP, [marker], batch_id=1, extracted_at=EXTRACTED_AT)

    row = batch.to_pylist()[0]
    assert (row["_op"], row["_present"], row["_row_id"]) == ("t", [], None)
    assert (row["id"], row["name"], row["salary"]) == (None, None, None)
    assert (row["_scn"], row["_commit_scn"], row["_redo_pos"]) == (100, 105, 7)


def test_rows_keep_the_order_given() -> None:
    records = [
        change("c", {"ID": Decimal(n)}, full_image=False, scn=200 - n, redo_pos=n)
        for n in (1, 2, 3)
    ]

    batch = change_batch(EMP, records, batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("id").to_pylist() == [Decimal(1), Decimal(2), Decimal(3)]
    assert batch.column("_scn").to_pylist() == [199, 198, 197]


def test_redo_position_beyond_64_bits_is_exact() -> None:
    redo_pos = (0xC5D << 80) | (0x271 << 48) | (0x10 << 32) | 5  # seq, block, offset, ssn
    record = change("c", {"ID": Decimal(1)}, full_image=False, redo_pos=redo_pos)

    batch = change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("_redo_pos").to_pylist() == [Decimal(redo_pos)]


def test_commit_time_in_another_zone_lands_as_the_same_instant_in_utc() -> None:
    paris = timezone(timedelta(hours=2))
    record = replace(
        change("c", {"ID": Decimal(1)}, full_image=True),
        commit_ts=datetime(2024, 5, 1, 14, 0, tzinfo=paris),
    )

    batch = change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)

    assert batch.column("_commit_ts").cast(pa.int64()).to_pylist() == [
        int(datetime(2024, 5, 1, 12, 0, tzinfo=UTC).timestamp() * 1_000_000)
    ]


def test_record_of_another_table_is_rejected() -> None:
    record = change("c", {"ID": Decimal(1)}, full_image=True, table="DEPT")

    with pytest.raises(LandingError, match=r"HR\.DEPT.*HR\.EMP"):
        change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)


def test_column_unknown_to_dictionary_is_rejected() -> None:
    record = change("c", {"ID": Decimal(1), "BONUS": Decimal(5)}, full_image=False)

    with pytest.raises(LandingError, match="BONUS"):
        change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)


def test_value_that_does_not_fit_its_column_names_the_column() -> None:
    record = change("c", {"ID": Decimal(1), "SALARY": "ten"}, full_image=False)

    with pytest.raises(LandingError, match="salary"):
        change_batch(EMP, [record], batch_id=1, extracted_at=EXTRACTED_AT)


def test_naive_extraction_time_is_rejected() -> None:
    with pytest.raises(LandingError, match="extracted_at"):
        change_batch(EMP, [], batch_id=1, extracted_at=datetime(2024, 5, 1, 12, 0))


def _snapshot_input(**overrides: pa.Array) -> pa.RecordBatch:
    columns = {
        "id": pa.array([Decimal(1), Decimal(2)], pa.decimal128(10, 0)),
        "name": pa.array(["Ann", None], pa.string()),
        "salary": pa.array([Decimal("1.50"), Decimal("2.00")], pa.decimal128(8, 2)),
        "_row_id": pa.array(["AAAR3sAAEAAAACXAAA", "AAAR3sAAEAAAACXAAB"], pa.string()),
        **overrides,
    }
    return pa.RecordBatch.from_pydict(columns)


def test_snapshot_rows_are_reads_at_the_snapshot_scn() -> None:
    snapshot_ts = datetime(2024, 5, 1, 11, 0, tzinfo=UTC)

    batch = snapshot_batch(
        EMP,
        _snapshot_input(),
        snapshot_scn=500,
        snapshot_ts=snapshot_ts,
        batch_id=4,
        extracted_at=EXTRACTED_AT,
    )

    assert batch.to_pylist()[1] == {
        "id": Decimal(2),
        "name": None,
        "salary": Decimal("2.00"),
        "_op": "r",
        "_scn": 500,
        "_commit_scn": 500,
        "_redo_pos": Decimal(0),
        "_rs_id": None,
        "_ssn": None,
        "_xid": None,
        "_row_id": "AAAR3sAAEAAAACXAAB",
        "_commit_ts": snapshot_ts,
        "_present": None,
        "_batch_id": 4,
        "_extracted_at": EXTRACTED_AT,
    }


def test_snapshot_batch_has_the_staging_schema_of_change_batch() -> None:
    batch = snapshot_batch(
        EMP,
        _snapshot_input(),
        snapshot_scn=500,
        snapshot_ts=EXTRACTED_AT,
        batch_id=4,
        extracted_at=EXTRACTED_AT,
    )

    empty = change_batch(EMP, [], batch_id=1, extracted_at=EXTRACTED_AT)
    assert batch.schema == empty.schema


def test_snapshot_column_of_a_narrower_type_is_cast() -> None:
    source = _snapshot_input(id=pa.array([1, 2], pa.int32()))

    batch = snapshot_batch(
        EMP, source, snapshot_scn=1, snapshot_ts=EXTRACTED_AT, batch_id=1, extracted_at=EXTRACTED_AT
    )

    assert batch.column("id").to_pylist() == [Decimal(1), Decimal(2)]


def test_snapshot_without_rowid_is_rejected() -> None:
    source = _snapshot_input().drop_columns(["_row_id"])

    with pytest.raises(LandingError, match="_row_id"):
        snapshot_batch(
            EMP,
            source,
            snapshot_scn=1,
            snapshot_ts=EXTRACTED_AT,
            batch_id=1,
            extracted_at=EXTRACTED_AT,
        )


def test_snapshot_missing_a_source_column_is_rejected() -> None:
    source = _snapshot_input().drop_columns(["salary"])

    with pytest.raises(LandingError, match="salary"):
        snapshot_batch(
            EMP,
            source,
            snapshot_scn=1,
            snapshot_ts=EXTRACTED_AT,
            batch_id=1,
            extracted_at=EXTRACTED_AT,
        )


def test_a_column_the_source_dropped_lands_null_another_missing_is_refused() -> None:
    """``read``: the source's definition now. SALARY dropped from it (kept in staging) is
    NULL in the batch; NAME, still in the source, missing from the batch is refused."""
    source_now = dataclasses.replace(
        EMP, columns=tuple(c for c in EMP.columns if c.name != "SALARY")
    )
    read_without_salary = _snapshot_input().drop_columns(["salary"])

    batch = snapshot_batch(
        EMP, read_without_salary, snapshot_scn=1, snapshot_ts=EXTRACTED_AT, batch_id=1,
        extracted_at=EXTRACTED_AT, read=source_now,
    )  # fmt: skip

    assert batch.column("salary").to_pylist() == [None, None]
    assert batch.column("name").to_pylist() == ["Ann", None]
    with pytest.raises(LandingError, match="lacks column name"):
        snapshot_batch(
            EMP, read_without_salary.drop_columns(["name"]), snapshot_scn=1,
            snapshot_ts=EXTRACTED_AT, batch_id=1, extracted_at=EXTRACTED_AT, read=source_now,
        )  # fmt: skip


decimal_texts = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=None).map(str),
    st.integers(-(10**40), 10**40).map(lambda n: f"{n}.{abs(n) % 100:02d}"),
    st.integers(-(10**14), 10**14).map(lambda n: f"{n}E{-3}"),
    st.sampled_from(["0", "-0", "0E-5", "1E+2", "1.250", "1.255", "-1.5E-1", "99999999.99"]),
)


@settings(max_examples=500, deadline=None)
@given(
    texts=st.lists(st.one_of(st.none(), decimal_texts), max_size=6),
    scale=st.integers(0, 12),
    precision=st.sampled_from([10, 18, 38]),
)
def test_a_decimal_column_lands_the_values_arrow_gives_the_decimals_or_the_same_refusal(
    texts: list[str | None], scale: int, precision: int
) -> None:
    arrow_type = pa.decimal128(precision, scale)
    values = [None if t is None else Decimal(t) for t in texts]
    try:
        expected: object = pa.array(values, type=arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        expected = "refused"
    try:
        landed: object = _decimal_column(arrow_type, values)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        landed = "refused"
    assert landed == expected


@pytest.mark.parametrize(
    ("scale", "text"),
    [
        (10, "12345678901234567890123456789012345678"),  # Arrow's text cast wraps around
        (10, "1234567890123456789012345678901.25"),
        (2, "123456789012345678901234567890123456.78"),
        (37, "0E+2"),
        (0, "1E+37"),
    ],
)
def test_a_wide_decimal_is_refused_or_landed_as_arrow_does_with_the_decimal(
    scale: int, text: str
) -> None:
    arrow_type = pa.decimal128(38, scale)
    try:
        expected: object = pa.array([Decimal(text)], type=arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        expected = "refused"
    try:
        landed: object = _decimal_column(arrow_type, [Decimal(text)])
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        landed = "refused"
    assert landed == expected


def test_a_decimal_column_of_other_values_is_converted_by_arrow_as_before() -> None:
    arrow_type = pa.decimal128(6, 2)
    assert _decimal_column(arrow_type, [5, None]) == pa.array([5, None], type=arrow_type)


row_values = st.dictionaries(
    st.sampled_from(["ID", "NAME", "SALARY", "OTHER"]),
    st.one_of(st.none(), st.integers(), st.text(max_size=3), st.decimals(allow_nan=False)),
)


@settings(max_examples=300, deadline=None)
@given(rows=st.lists(row_values, max_size=12))
def test_the_columns_of_change_rows_are_read_alike_in_c_and_in_python(
    rows: list[dict[str, object]],
) -> None:
    """Each column is the records' values in order, None where a record does not carry
    the column (``columns_of`` in C, else the Python reading)."""
    records = [change("u", values, full_image=False, redo_pos=n) for n, values in enumerate(rows)]
    names = ("ID", "NAME", "SALARY")
    expected = [[values.get(name) for values in rows] for name in names]
    columns = _values_by_column(records, names)
    assert [[repr(v) for v in column] for column in columns] == [
        [repr(v) for v in column] for column in expected
    ]
    assert len(columns) == len(expected)
    for got, want in zip(columns, expected, strict=True):
        assert all(a is b for a, b in zip(got, want, strict=True))  # the objects themselves
    with implementation.pure_python():
        assert _values_by_column(records, names) == columns


def test_columns_of_change_rows_whose_values_are_not_a_dict_are_read_in_python() -> None:
    records = [
        change("u", {"ID": Decimal(1)}, full_image=False, redo_pos=1),
        change("u", MappingProxyType({"NAME": "b"}), full_image=False, redo_pos=2),
    ]
    assert implementation.compiled is None or (
        implementation.compiled.columns_of([dict(r.values) for r in records], ("ID",))
        == [[Decimal(1), None]]
    )
    assert _values_by_column(records, ("ID", "NAME")) == [[Decimal(1), None], [None, "b"]]
