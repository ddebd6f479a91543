"""The replica's own watermark: the highest ``_batch_id`` it has taken in.

The consolidation model reads the staging rows above this watermark on its next run, so it is
the last batch consolidated as dbt sees it, whoever ran dbt. With hard deletes, a last batch
holding only deletes leaves no row behind and is not counted (it is read again, harmlessly).
A merge-on-read replica (docs/dbt.md "Replica layouts") counts its base and delta tables,
tombstones included, and the watermark its last compaction recorded on the base.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from extractor.staging_contract import replica_model_name
from extractor.verify.replica_digest import quote_spark


def replica_watermarks(spark: Any, schema: str, tables: Iterable[str]) -> dict[str, int | None]:
    """``OWNER.TABLE`` -> the replica's highest ``_batch_id``; None for a replica that does
    not exist yet or is empty."""
    quoted_schema = quote_spark(schema, "replica schema")
    watermarks: dict[str, int | None] = {}
    for qualified in tables:
        owner, _, name = qualified.partition(".")
        model = replica_model_name(owner, name)
        if not spark.catalog.tableExists(f"{schema}.{model}"):
            watermarks[qualified] = None
            continue
        merge_on_read = _merge_on_read_properties(spark, schema, quoted_schema, model)
        if merge_on_read is not None:
            watermarks[qualified] = _merge_on_read_watermark(
                spark, quoted_schema, model, merge_on_read
            )
            continue
        relation = f"{quoted_schema}.{quote_spark(model, 'replica')}"
        row = spark.sql(f"select max(`_batch_id`) as watermark from {relation}").collect()[0]
        value = row["watermark"]
        watermarks[qualified] = None if value is None else int(value)
    return watermarks


MERGE_ON_READ_BASE = "__base"
MERGE_ON_READ_DELTA = "__delta"
COMPACTED_WATERMARK = "oracle_cdc.watermark"
LAYOUT_PROPERTY = "oracle_cdc.layout"


def _merge_on_read_properties(
    spark: Any, schema: str, quoted_schema: str, model: str
) -> dict[str, str] | None:
    """The base table's properties when ``model`` is a merge-on-read replica (its base was
    built by that layout, which records oracle_cdc.layout); else None."""
    if not spark.catalog.tableExists(f"{schema}.{model}{MERGE_ON_READ_BASE}"):
        return None
    base = f"{quoted_schema}.{quote_spark(model + MERGE_ON_READ_BASE, 'replica base')}"
    properties = {r[0]: r[1] for r in spark.sql(f"show tblproperties {base}").collect()}
    return properties if properties.get(LAYOUT_PROPERTY) == "merge_on_read" else None


def _merge_on_read_watermark(
    spark: Any, quoted_schema: str, model: str, properties: dict[str, str]
) -> int | None:
    base = f"{quoted_schema}.{quote_spark(model + MERGE_ON_READ_BASE, 'replica base')}"
    delta = f"{quoted_schema}.{quote_spark(model + MERGE_ON_READ_DELTA, 'replica delta')}"
    row = spark.sql(
        f"select greatest((select max(`_batch_id`) from {base}),"
        f" (select max(`_batch_id`) from {delta})) as watermark"
    ).collect()[0]
    candidates = [row["watermark"], properties.get(COMPACTED_WATERMARK)]
    values = [int(value) for value in candidates if value is not None]
    return max(values) if values else None
