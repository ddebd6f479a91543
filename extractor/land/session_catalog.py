"""The catalog calls of the landing layer: a table's columns, its location, a refresh.

Through SQL they cost tens of milliseconds each, per table (``REFRESH TABLE`` ~36 ms,
``DESCRIBE TABLE EXTENDED`` ~26 ms, ``spark.catalog.tableExists`` and a schema read through
``spark.table`` ~21 ms: parsing, analysis, the metastore; ``bench/catalog_bench.py``), which
a first start pays for every table and a stream pass for every table it landed in. In an
embedded session the same facts come from Spark's session catalog in the JVM in one py4j
call each: ~10 ms for a table's metadata, ~2.5 ms to drop its cached relation.

The JVM is used only where it answers exactly what the SQL would:

- the session is embedded (a Spark Connect session has no JVM here);
- its current catalog is the session catalog (``spark_catalog``), where the writer's
  two-part names resolve;
- for a refresh, the session caches no query result (``CACHE TABLE``): ``REFRESH TABLE``
  also rebuilds those, dropping the cached relation does not.

Elsewhere the SQL statements are used. Dropping the cached relation is what makes the next
query list the table's files again; a DataFrame made before keeps the files it listed, which
nothing in this process holds across a landing.
"""

from __future__ import annotations

import json
from typing import Any

from pyspark.sql.types import StructType

from extractor.land.spark_sql import Columns, qualified_table

SESSION_CATALOG = "spark_catalog"


def table_exists(spark: Any, schema: str, table: str) -> bool:
    """True when ``schema.table`` exists."""
    catalog = _session_catalog(spark)
    if catalog is None:
        return bool(spark.catalog.tableExists(f"{schema}.{table}"))
    return bool(catalog.tableExists(_identifier(spark, schema, table)))


def table_columns(spark: Any, schema: str, table: str) -> Columns | None:
    """``schema.table``'s columns as (lower-case name, Spark type), or None if it does not
    exist."""
    catalog = _session_catalog(spark)
    if catalog is None:
        if not spark.catalog.tableExists(f"{schema}.{table}"):
            return None
        return _columns_of(spark.table(qualified_table(schema, table)).schema)
    identifier = _identifier(spark, schema, table)
    if not catalog.tableExists(identifier):
        return None
    struct = StructType.fromJson(json.loads(catalog.getTableMetadata(identifier).schema().json()))
    return _columns_of(struct)


def table_location(spark: Any, schema: str, table: str) -> str | None:
    """Where ``schema.table``'s files are, as ``DESCRIBE TABLE EXTENDED`` prints it; None
    when it has no location."""
    catalog = _session_catalog(spark)
    if catalog is None:
        rows = spark.sql(f"DESCRIBE TABLE EXTENDED {qualified_table(schema, table)}").collect()
        for row in rows:
            if str(row[0]).strip() == "Location":
                return str(row[1]).strip() or None
        return None
    location = catalog.getTableMetadata(_identifier(spark, schema, table)).storage().locationUri()
    if location.isEmpty():
        return None
    catalog_utils = spark._jvm.org.apache.spark.sql.catalyst.catalog.CatalogUtils
    return str(catalog_utils.URIToString(location.get())).strip() or None


def refresh_table(spark: Any, schema: str, table: str) -> None:
    """Make this session list ``schema.table``'s files again at its next read."""
    catalog = _session_catalog(spark)
    if catalog is None or not spark._jsparkSession.sharedState().cacheManager().isEmpty():
        spark.sql(f"REFRESH TABLE {qualified_table(schema, table)}")
        return
    catalog.invalidateCachedTable(_identifier(spark, schema, table))


def _session_catalog(spark: Any) -> Any | None:
    """The JVM's session catalog of ``spark``, when it answers for two-part names; else None."""
    try:
        state = spark._jsparkSession.sessionState()
    except AttributeError:  # Spark Connect, or a stand-in without a JVM
        return None
    if str(state.catalogManager().currentCatalog().name()) != SESSION_CATALOG:
        return None
    return state.catalog()


def _identifier(spark: Any, schema: str, table: str) -> Any:
    jvm = spark._jvm
    return jvm.org.apache.spark.sql.catalyst.TableIdentifier.apply(
        table, jvm.scala.Option.apply(schema)
    )


def _columns_of(struct: Any) -> Columns:
    return tuple((f.name.lower(), f.dataType.simpleString()) for f in struct.fields)
