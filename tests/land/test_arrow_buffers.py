"""Arrow arrays built from the C extension's buffers against ``pyarrow.array`` of the same
values: equal, or declined (then pyarrow converts or refuses them as before)."""

from __future__ import annotations

import gc
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractor.change_record import ChangeRecord
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import LandingError
from extractor.land.arrow_buffers import array_from_buffers
from extractor.land.change_batch import change_batch
from extractor.parse import implementation
from tests.land.records import EXTRACTED_AT

pytestmark = pytest.mark.skipif(
    implementation.compiled is None, reason="the C extension is not built here"
)

PLAIN = [
    ([1, None, -5, 2**63 - 1, -(2**63)], pa.int64()),
    (
        [Decimal("1.5"), None, Decimal("-0.05"), Decimal("123"), Decimal("-0"), 7, -12],
        pa.decimal128(10, 2),
    ),
    ([2**70, -(2**70), None, 10**38 - 1, -(10**38) + 1], pa.decimal128(38, 0)),
    ([Decimal("99999999.99"), Decimal("0.00")], pa.decimal128(10, 2)),
    (
        [
            datetime(2020, 1, 2, 3, 4, 5, 6),
            None,
            datetime(1, 1, 1),
            datetime(9999, 12, 31, 23, 59, 59, 999999),
        ],
        pa.timestamp("us"),
    ),
    ([datetime(1969, 12, 31, 23, 59, 59, 1, tzinfo=UTC), None], pa.timestamp("us", tz="UTC")),
    ([datetime(2020, 1, 2, 3, 4, 5)], pa.timestamp("us", tz="UTC")),  # naive as UTC
    ([datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)], pa.timestamp("us")),
    (["a", None, "héllo", "", "日本", "😀"], pa.string()),
    ([b"a", None, b"", bytes(range(256))], pa.binary()),
    ([None, None], pa.string()),
    ([], pa.decimal128(12, 2)),
]


@pytest.mark.parametrize(("values", "arrow_type"), PLAIN)
def test_plain_values_are_built_from_buffers_as_pyarrow_converts_them(
    values: list[object], arrow_type: pa.DataType
) -> None:
    built = array_from_buffers(values, arrow_type)
    assert built is not None
    built.validate(full=True)
    assert built.equals(pa.array(values, type=arrow_type))
    assert built.null_count == values.count(None)


DECLINED = [
    ([Decimal("1E+2")], pa.decimal128(10, 0)),  # an exponent
    ([Decimal("1.234")], pa.decimal128(10, 2)),  # more digits after the point than the scale
    ([Decimal("123456789.1")], pa.decimal128(10, 2)),  # 11 digits at scale 2
    ([10**38], pa.decimal128(38, 0)),
    ([Decimal("NaN")], pa.decimal128(10, 2)),
    ([1.5], pa.decimal128(10, 2)),
    ([2**63], pa.int64()),
    ([True], pa.int64()),
    ([Decimal(1)], pa.int64()),
    ([datetime(2020, 1, 1, tzinfo=timezone(timedelta(hours=2)))], pa.timestamp("us", tz="UTC")),
    (["\ud800"], pa.string()),
    ([b"x"], pa.string()),
    (["x"], pa.binary()),
]


@pytest.mark.parametrize(("values", "arrow_type"), DECLINED)
def test_values_not_taken_as_they_are_are_left_to_pyarrow(
    values: list[object], arrow_type: pa.DataType
) -> None:
    assert array_from_buffers(values, arrow_type) is None


def test_a_type_the_c_code_does_not_fill_is_left_to_pyarrow() -> None:
    assert array_from_buffers([1.5], pa.float64()) is None
    assert array_from_buffers([["a"]], pa.list_(pa.string())) is None
    assert array_from_buffers([1], pa.timestamp("ns")) is None
    moment = datetime(2020, 1, 1)
    assert array_from_buffers([moment], pa.timestamp("us", tz="Europe/Paris")) is None
    assert array_from_buffers([Decimal(100)], pa.decimal128(5, -2)) is None
    assert array_from_buffers([None], pa.decimal128(5, 10)) is None  # scale over precision
    assert array_from_buffers((1, 2), pa.int64()) is None  # not a list


def test_python_code_run_while_columns_are_read_never_sees_an_unset_item() -> None:
    """An attribute (or a dict key's ``__eq__``) can run Python code that reaches the lists
    being filled through the garbage collector: their items are None until set, never
    unset (which would crash the process)."""
    assert implementation.compiled is not None
    seen: list[object] = []

    class Peeking:
        @property
        def value(self) -> int:
            for found in gc.get_objects():
                if type(found) is list and len(found) == 3 and found is not objects:
                    seen.extend(found)
            return 1

    objects = [Peeking(), Peeking(), Peeking()]
    assert implementation.compiled.attributes_of(objects, ("value",)) == [[1, 1, 1]]
    assert seen  # the lists were found while being filled


def _same_as_pyarrow(values: list[object], arrow_type: pa.DataType) -> None:
    try:
        expected: pa.Array | None = pa.array(values, type=arrow_type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError):
        expected = None
    built = array_from_buffers(values, arrow_type)
    if built is None:
        return  # pyarrow converts or refuses them, as without the C code
    assert expected is not None, f"built {built} where pyarrow refuses {values!r}"
    built.validate(full=True)
    assert built.equals(expected)


decimals = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=None),
    st.integers(-(10**40), 10**40).map(lambda n: Decimal(f"{n}.{abs(n) % 100:02d}")),
    st.integers(-(10**40), 10**40),
    st.sampled_from([Decimal("-0"), Decimal("0E-5"), Decimal("1E+2"), Decimal("0.000")]),
)


@settings(max_examples=400, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), decimals), max_size=8),
    precision=st.integers(1, 38),
    scale_share=st.floats(0, 1),
)
def test_decimals_are_built_as_pyarrow_converts_them_or_left_to_it(
    values: list[object], precision: int, scale_share: float
) -> None:
    _same_as_pyarrow(values, pa.decimal128(precision, int(precision * scale_share)))


zones = st.sampled_from([None, UTC, timezone(timedelta(hours=-5))])


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.one_of(st.none(), st.datetimes(timezones=zones)), max_size=8),
    arrow_type=st.sampled_from([pa.timestamp("us"), pa.timestamp("us", tz="UTC")]),
)
def test_timestamps_are_built_as_pyarrow_converts_them_or_left_to_it(
    values: list[object], arrow_type: pa.DataType
) -> None:
    _same_as_pyarrow(values, arrow_type)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.none(), st.text(), st.binary(), st.integers(-(2**65), 2**65)), max_size=8
    ),
    arrow_type=st.sampled_from([pa.string(), pa.binary(), pa.int64()]),
)
def test_strings_binaries_and_ints_are_built_as_pyarrow_converts_them_or_left_to_it(
    values: list[object], arrow_type: pa.DataType
) -> None:
    _same_as_pyarrow(values, arrow_type)


# SALES.ORDERS: one column of each type family the C code fills, and one it does not.
ORDERS = TableDef(
    owner="SALES",
    name="ORDERS",
    columns=(
        ColumnDef("ID", 1, "NUMBER", data_precision=12, data_scale=0, nullable=False),
        ColumnDef("AMOUNT", 2, "NUMBER", data_precision=12, data_scale=2),
        ColumnDef("NOTE", 3, "VARCHAR2", data_length=40),
        ColumnDef("PLACED", 4, "DATE"),
        ColumnDef("PAID", 5, "TIMESTAMP(6) WITH TIME ZONE", data_scale=6),
        ColumnDef("TAG", 6, "RAW", data_length=16),
        ColumnDef("RATE", 7, "BINARY_DOUBLE"),
    ),
    primary_key=("ID",),
)

order_values = st.fixed_dictionaries(
    {},
    optional={
        "ID": st.integers(-(10**12) + 1, 10**12 - 1).map(Decimal),
        "AMOUNT": st.one_of(st.none(), decimals),
        "NOTE": st.one_of(st.none(), st.text(max_size=5)),
        "PLACED": st.one_of(st.none(), st.datetimes()),
        "PAID": st.one_of(st.none(), st.datetimes(timezones=st.just(UTC))),
        "TAG": st.one_of(st.none(), st.binary(max_size=4)),
        "RATE": st.one_of(st.none(), st.floats(allow_nan=False)),
    },
)


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.tuples(order_values, st.integers(0, 2**80), st.booleans()), max_size=10))
def test_a_landing_batch_is_the_same_with_and_without_the_c_code(
    rows: list[tuple[dict[str, object], int, bool]],
) -> None:
    records = [
        ChangeRecord(
            op="u",
            owner="SALES",
            table="ORDERS",
            scn=100 + n,
            commit_scn=200,
            redo_pos=redo_pos,
            rs_id=" 0x000c5d.00000271.0010 ",
            ssn=n,
            xid=None if n % 3 else "0a001b00c4030000",
            row_id="AAAR3sAAEAAAACXAAA",
            commit_ts=datetime(2024, 5, 1, tzinfo=UTC) + timedelta(microseconds=n),
            values=values,
            full_image=full and len(values) == len(ORDERS.columns),
        )
        for n, (values, redo_pos, full) in enumerate(rows)
    ]

    def batch() -> pa.Table | str:
        try:
            return change_batch(ORDERS, records, batch_id=3, extracted_at=EXTRACTED_AT)
        except LandingError as error:
            return f"refused: {error}"

    landed = batch()
    with implementation.pure_python():
        expected = batch()
    assert (landed if isinstance(landed, str) else landed.to_pylist()) == (
        expected if isinstance(expected, str) else expected.to_pylist()
    )
    if not isinstance(landed, str):
        assert isinstance(expected, pa.Table)
        assert landed.equals(expected)
