"""The canonical digest rules (docs/operations.md) and the Oracle verify statements."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal

import pytest
import sqlglot

from extractor.dictionary import ColumnDef, TableDef
from extractor.verify import canonical
from extractor.verify.source_digest import count_statement, digest_statement


@pytest.mark.parametrize(
    ("value", "bits"),  # IEEE 754 binary64, big-endian hex (from the standard's layout)
    [(1.5, "3FF8000000000000"), (0.1, "3FB999999999999A"), (-2.0, "C000000000000000"),
     (0.0, "0000000000000000"), (-0.0, "0000000000000000"),
     (float("inf"), "7FF0000000000000"), (float("nan"), "NaN")],
)  # fmt: skip
def test_doubles_are_written_as_their_ieee_bits(value: float, bits: str) -> None:
    assert canonical.float_text(value) == bits


def test_decimals_lose_trailing_zeros() -> None:
    assert canonical.canonical_text("DECIMAL(10,2)", Decimal("100.50")) == "100.5"


def test_an_aware_timestamp_is_written_in_utc_with_microseconds() -> None:
    moment = datetime(2024, 1, 1, 2, 0, tzinfo=timezone(timedelta(hours=2)))
    assert canonical.canonical_text("TIMESTAMP", moment) == "2024-01-01 00:00:00.000000"
    assert canonical.canonical_text("TIMESTAMP", moment.astimezone(UTC)) == (
        "2024-01-01 00:00:00.000000"
    )


def test_null_has_its_own_digest_and_binary_is_hashed_as_bytes() -> None:
    assert canonical.column_digest("STRING", None) == "-"
    expected = hashlib.sha256(b"\x00\xff").hexdigest().upper()
    assert canonical.column_digest("BINARY", b"\x00\xff") == expected


def test_the_bucket_is_the_first_three_hex_digits_of_the_key_digest() -> None:
    assert canonical.bucket_of("FFF" + "0" * 61) == 4095
    assert canonical.bucket_of("00A" + "0" * 61) == 10


def test_a_wide_row_is_digested_in_groups_of_sixty() -> None:
    digests = [canonical.column_digest("STRING", str(i)) for i in range(61)]
    assert len(canonical.groups(digests)) == 2


_WIDE = TableDef(
    "HR",
    "EVERY TYPE",
    tuple(
        ColumnDef(f"C{i}", i, t, 22, p, s)
        for i, (t, p, s) in enumerate(
            [
                ("NUMBER", 10, 0),
                ("NUMBER", None, None),
                ("BINARY_DOUBLE", None, None),
                ("DATE", None, None),
                ("TIMESTAMP(6)", None, 6),
                ("TIMESTAMP(9)", None, 9),
                ("TIMESTAMP(6) WITH TIME ZONE", None, 6),
                ("RAW", None, None),
                ("CLOB", None, None),
                ("BLOB", None, None),
                ("NVARCHAR2", None, None),
                ("INTERVAL DAY(2) TO SECOND(6)", None, 6),
                ("INTERVAL YEAR(2) TO MONTH", 2, None),
            ]
            + [("VARCHAR2", None, None)] * 60,
            start=1,
        )
    ),
    ("C1",),
    "ALL",
)


@pytest.mark.parametrize("per_column", [False, True])
def test_the_verify_query_parses_as_oracle_sql(per_column: bool) -> None:
    sqlglot.parse_one(digest_statement(_WIDE, per_column), read="oracle")
    sqlglot.parse_one(count_statement(_WIDE), read="oracle")


def test_the_verify_query_reads_as_of_the_scn_and_filters_buckets() -> None:
    text = digest_statement(_WIDE, per_column=False)
    assert 'FROM "HR"."EVERY TYPE" AS OF SCN :scn' in text
    assert text.endswith("BETWEEN :bucket_lo AND :bucket_hi")
    assert text.count("AS D") == 2  # 73 columns: two groups
