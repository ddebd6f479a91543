"""spark_type: the one Oracle -> Spark mapping (docs/logminer.md §6, docs/types.md)."""

from __future__ import annotations

import pytest

from extractor.dictionary import ColumnDef
from extractor.errors import UnsupportedTypeError
from extractor.spark_types import spark_type


def col(data_type: str, precision: int | None = None, scale: int | None = None) -> ColumnDef:
    return ColumnDef("C", 1, data_type, data_precision=precision, data_scale=scale)


@pytest.mark.parametrize(
    ("column", "expected"),
    [
        (col("NUMBER", 10, 2), "DECIMAL(10,2)"),
        (col("NUMBER", 38, 0), "DECIMAL(38,0)"),
        (col("NUMBER", 5, -2), "DECIMAL(7,0)"),
        (col("NUMBER", 38, -2), "STRING"),
        (col("NUMBER", None, 0), "DECIMAL(38,0)"),
        (col("NUMBER", 2, 5), "STRING"),
        (col("NUMBER"), "STRING"),
        (col("FLOAT", 126), "STRING"),
        (col("BINARY_FLOAT"), "FLOAT"),
        (col("BINARY_DOUBLE"), "DOUBLE"),
        (col("DATE"), "TIMESTAMP_NTZ"),
        (col("TIMESTAMP(6)"), "TIMESTAMP_NTZ"),
        (col("TIMESTAMP(9)"), "STRING"),
        (col("TIMESTAMP(3) WITH TIME ZONE"), "TIMESTAMP"),
        (col("TIMESTAMP(6) WITH LOCAL TIME ZONE"), "TIMESTAMP"),
        (col("TIMESTAMP(9) WITH TIME ZONE"), "STRING"),
        (col("INTERVAL YEAR(2) TO MONTH"), "STRING"),
        (col("INTERVAL DAY(2) TO SECOND(6)"), "STRING"),
        (col("CHAR"), "STRING"),
        (col("NVARCHAR2"), "STRING"),
        (col("CLOB"), "STRING"),
        (col("RAW"), "BINARY"),
        (col("BLOB"), "BINARY"),
    ],
)
def test_oracle_type_lands_as(column: ColumnDef, expected: str) -> None:
    assert spark_type(column) == expected


@pytest.mark.parametrize("data_type", ["XMLTYPE", "BFILE", "SDO_GEOMETRY"])
def test_types_we_do_not_replicate_raise(data_type: str) -> None:
    with pytest.raises(UnsupportedTypeError):
        spark_type(col(data_type))
