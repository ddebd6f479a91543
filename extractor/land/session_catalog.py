"""The catalog calls of the landing layer: a table's columns, its location, a refresh.

Through SQL they cost tens of milliseconds each, per table (``REFRESH TABLE`` ~36 ms,
``DESCRIBE TABLE EXTENDED`` ~26 ms, ``spark.catalog.tableExists`` and a schema read through
``spark.table`` ~21 ms: parsing, analysis, the metastore; ``bench/catalog_bench.py``), which
a first start pays for every table and a stream pass for every table it landed in. In an
embedded session the same facts come from Spark's session catalog in the JVM in one py4j
call each: ~10 ms for a table's metadata, ~2.5 ms to drop its cached relation. A table's
columns and location come from one read of its metadata (``table_facts``): the metastore is
asked once per table and process, not three times (existence, schema, location).

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
from typing import Any, NamedTuple

from pyspark.errors import AnalysisException
from pyspark.sql.types import StructType

from extractor.land.spark_sql import Columns, qualified_table

SESSION_CATALOG = "spark_catalog"


class TableFacts(NamedTuple):
    """What the landing layer reads of an existing table."""

    columns: Columns  # (lower-case name, Spark type), in the table's order
    location: str | None  # as ``DESCRIBE TABLE EXTENDED`` prints it; None: it has none


def table_facts(spark: Any, schema: str, table: str) -> TableFacts | None:
    """``schema.table``'s columns and location, or None if it does not exist: one read of
    the metastore in an embedded session (``table_columns`` and ``table_location`` together
    cost three), the two SQL lookups elsewhere."""
    catalog = _session_catalog(spark)
    if catalog is None:
        columns = table_columns(spark, schema, table)
        if columns is None:
            return None
        return TableFacts(columns, table_location(spark, schema, table))
    jvm = spark._jvm
    names = jvm.org.apache.spark.api.python.PythonUtils.toSeq([_identifier(spark, schema, table)])
    try:
        found = catalog.getTablesByName(names)  # the tables that exist, without an exception
    except AnalysisException as error:  # ... unless their schema does not exist either
        if error.getCondition() == "SCHEMA_NOT_FOUND":
            return None
        raise
    if found.isEmpty():
        return None
    metadata = found.head()
    return TableFacts(_columns_of(_schema_of(spark, metadata)), _location_of(spark, metadata))


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
    return _columns_of(_schema_of(spark, catalog.getTableMetadata(identifier)))


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
    return _location_of(spark, catalog.getTableMetadata(_identifier(spark, schema, table)))


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


def _schema_of(spark: Any, metadata: Any) -> StructType:
    """A JVM ``CatalogTable``'s schema as queries see it: CHAR and VARCHAR read as STRING
    (what ``SessionCatalog.getTableMetadata`` does, and ``spark.table(...).schema`` shows)."""
    utils = spark._jvm.org.apache.spark.sql.catalyst.util.CharVarcharUtils
    queried = utils.replaceCharVarcharWithStringInSchema(metadata.schema())
    return StructType.fromJson(json.loads(queried.json()))


def _location_of(spark: Any, metadata: Any) -> str | None:
    """A JVM ``CatalogTable``'s location as ``DESCRIBE TABLE EXTENDED`` prints it."""
    location = metadata.storage().locationUri()
    if location.isEmpty():
        return None
    catalog_utils = spark._jvm.org.apache.spark.sql.catalyst.catalog.CatalogUtils
    return str(catalog_utils.URIToString(location.get())).strip() or None


def _columns_of(struct: Any) -> Columns:
    return tuple((f.name.lower(), f.dataType.simpleString()) for f in struct.fields)
