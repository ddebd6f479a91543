"""The replica side of ``oracdc verify``: the same digests in Spark SQL.

The expressions reproduce :mod:`extractor.verify.canonical` over the replica's Spark types;
rows flagged ``_deleted`` are not part of the replica. Every identifier is validated and
back-quoted before it reaches Spark SQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from extractor.dictionary import TableDef
from extractor.errors import VerifyError
from extractor.staging_contract import replica_model_name
from extractor.verify import canonical
from extractor.verify.digest_rows import (
    BucketRange,
    DigestRow,
    VerifyColumn,
    key_columns,
    value_columns,
)

_SPARK_NAME = re.compile(r"^[A-Za-z0-9_$#]{1,128}$")
_TIMESTAMP_FORMAT = "'yyyy-MM-dd HH:mm:ss.SSSSSS'"


def quote_spark(name: str, what: str = "identifier") -> str:
    """```name``` for a plain name (letters, digits, ``_ $ #``); anything else is refused."""
    if not _SPARK_NAME.match(name):
        raise VerifyError(
            f"{what} {name!r} is not a plain Spark identifier",
            fix="use letters, digits, _ $ # only",
        )
    return f"`{name}`"


def replica_table_name(schema: str, table: TableDef) -> str:
    """```schema`.`owner__table``` of ``table``'s replica."""
    return (
        f"{quote_spark(schema, 'replica schema')}."
        f"{quote_spark(replica_model_name(table.owner, table.name), 'replica table')}"
    )


def text_expression(column: VerifyColumn) -> str:
    quoted = quote_spark(column.spark_name, "column")
    kind = column.spark_type
    if kind.startswith("DECIMAL"):
        return (
            f"regexp_replace(regexp_replace(cast({quoted} as string), "
            r"'(\\.[0-9]*?)0+$', '$1'), '\\.$', '')"
        )
    if kind in ("FLOAT", "DOUBLE"):
        # IEEE bits (canonical.float_text): decimal formatting rounds differently per engine
        bits = (
            f"reflect('java.lang.Double', 'doubleToLongBits', "
            f"CASE WHEN {quoted} = 0 THEN double(0) ELSE cast({quoted} as double) END)"
        )
        return (
            f"CASE WHEN {quoted} IS NULL THEN NULL WHEN isnan({quoted}) THEN 'NaN' "
            f"ELSE lpad(hex(cast({bits} as bigint)), 16, '0') END"
        )
    if kind == "TIMESTAMP_NTZ":
        return f"date_format({quoted}, {_TIMESTAMP_FORMAT})"
    if kind == "TIMESTAMP":
        return f"date_format(to_utc_timestamp({quoted}, current_timezone()), {_TIMESTAMP_FORMAT})"
    if kind == "BINARY":
        return f"upper(hex({quoted}))"
    return quoted


def digest_expression(column: VerifyColumn) -> str:
    quoted = quote_spark(column.spark_name, "column")
    if column.spark_type == "BINARY":
        return f"coalesce(upper(sha2({quoted}, 256)), '-')"
    return f"coalesce(upper(sha2(cast({text_expression(column)} as binary), 256)), '-')"


def combined_expression(expressions: Sequence[str]) -> str:
    return f"upper(sha2(concat_ws(',', {', '.join(expressions)}), 256))"


def digest_select(table: TableDef, per_column: bool) -> list[str]:
    """The select list: key texts ``k1..``, ``key_digest``, digests ``d1..``."""
    keys = key_columns(table)
    column_digests = [digest_expression(c) for c in value_columns(table)]
    if per_column:
        digests = column_digests
    else:
        digests = [
            combined_expression(column_digests[i : i + canonical.GROUP_SIZE])
            for i in range(0, len(column_digests), canonical.GROUP_SIZE)
        ]
    return [
        *(f"{text_expression(k)} AS k{i}" for i, k in enumerate(keys, 1)),
        f"{combined_expression([digest_expression(k) for k in keys])} AS key_digest",
        *(f"{d} AS d{i}" for i, d in enumerate(digests, 1)),
    ]


class ReplicaDigests:
    """Counts and digests of the replicas in ``schema``."""

    def __init__(self, spark: Any, schema: str) -> None:
        self._spark = spark
        self._schema = schema

    def _frame(self, table: TableDef) -> Any:
        name = replica_table_name(self._schema, table)
        try:
            frame = self._spark.table(name)
        except VerifyError:
            raise
        except Exception as error:
            raise VerifyError(
                f"cannot read replica {name}: {' '.join(str(error).split())[:200]}",
                fix="run `oracdc sync` so that dbt builds the replica, or pass --replica-schema",
            ) from None
        if "_deleted" in frame.columns:
            frame = frame.where("NOT coalesce(`_deleted`, false)")
        return frame

    def count(self, table: TableDef) -> int:
        return int(self._frame(table).count())

    def digests(
        self, table: TableDef, buckets: BucketRange, *, per_column: bool = False
    ) -> Iterator[DigestRow]:
        width = len(key_columns(table))
        select = digest_select(table, per_column)  # names checked before Spark sees any
        try:
            frame = self._frame(table).selectExpr(*select)
            bucket = (
                f"cast(conv(substr(key_digest, 1, {canonical.BUCKET_HEX_DIGITS}), 16, 10) as int)"
            )
            rows = frame.where(f"{bucket} BETWEEN {buckets.low:d} AND {buckets.high:d}")
            records = rows.toArrow().to_pylist()
        except VerifyError:
            raise
        except Exception as error:
            raise VerifyError(
                f"cannot digest replica of {table.qualified_name}: "
                f"{' '.join(str(error).split())[:300]}",
                fix="check that the replica has every column of the source table (oracdc sync)",
            ) from None
        for record in records:
            values = list(record.values())
            yield DigestRow(
                tuple(values[:width]),
                str(values[width]),
                tuple(str(v) for v in values[width + 1 :]),
            )
