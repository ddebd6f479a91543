"""Landing a batch as one Parquet file that pyarrow writes straight into a table's storage.

The Spark append (``createDataFrame`` + ``insertInto``) sends every row through py4j and the
JVM. Where the extractor can reach the table's storage itself (its ``Location`` opens with a
pyarrow filesystem: local, and HDFS, S3, GCS or ABFS when pyarrow has them), this writer puts
the batch there as one file and has Spark refresh the table; elsewhere (e.g. a Spark Connect
server whose storage the extractor cannot see) it declines and the caller appends through
Spark.

A refresh only makes this Spark session list the table's files again (other sessions and
processes list them on their own); as ``REFRESH TABLE`` it costs tens of milliseconds a
table, ~2 ms through the session catalog of an embedded session (``session_catalog``).
Inside :meth:`ParquetFileWriter.refreshes_deferred` (a stream pass) a table is refreshed
once, when the block ends, instead of after every batch.

Atomicity is the Spark append's (docs/landing.md, "What a crash does"): the file is written
under a hidden name (Spark ignores names starting with ``.``) and renamed into place, so a
reader lists all of the batch or none of it; a crash before the rename leaves only a hidden
file, which Spark never reads; a later writer removes it once it is an hour old.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from extractor.land import session_catalog
from extractor.land.spark_sql import Columns, normalized_type, split_qualified

LOG = logging.getLogger(__name__)

# Hidden while written: Spark's file listing skips names that start with "." or "_".
TEMPORARY_PREFIX = ".oracdc-"
TEMPORARY_SUFFIX = ".parquet.tmp"
# A hidden file older than this is a crashed landing's (a running one renames within seconds).
LEFTOVER_AGE_SECONDS = 3600

_DECIMAL = re.compile(r"decimal\((\d+),(-?\d+)\)")
_PLAIN_TYPES: dict[str, pa.DataType] = {
    "string": pa.string(),
    "bigint": pa.int64(),
    "int": pa.int32(),
    "smallint": pa.int16(),
    "tinyint": pa.int8(),
    "double": pa.float64(),
    "float": pa.float32(),
    "boolean": pa.bool_(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
    "array<string>": pa.list_(pa.string()),
}


def arrow_type(spark_type: str) -> pa.DataType | None:
    """The Arrow type whose Parquet form Spark reads as ``spark_type``; None if not known."""
    text = normalized_type(spark_type)
    decimal = _DECIMAL.fullmatch(text)
    if decimal:
        return pa.decimal128(int(decimal.group(1)), int(decimal.group(2)))
    return _PLAIN_TYPES.get(text)


@dataclass(frozen=True)
class TableStorage:
    """Where a table's files are: a pyarrow filesystem and the directory on it."""

    filesystem: pafs.FileSystem
    directory: str


class ParquetFileWriter:
    """Writes landing batches as Parquet files into the storage of Spark tables."""

    def __init__(self, spark: Any, location_of: Callable[[str], str | None] | None = None) -> None:
        """``location_of``: a table's location (as ``DESCRIBE TABLE EXTENDED`` prints it)
        by its quoted, qualified name, when the caller already has it; else
        ``session_catalog.table_location`` asks the catalog."""
        self._spark = spark
        self._location_of = location_of or self._catalog_location
        self._storage: dict[str, TableStorage | None] = {}
        self._stale: set[str] | None = None  # inside refreshes_deferred: landed, not refreshed

    def append(self, name: str, columns: Columns, data: pa.Table) -> bool:
        """Write ``data`` (columns in the table's order) as one new file of table ``name``
        (quoted, qualified) and refresh Spark's view of it. False, with nothing written,
        when the table's storage or one of its types is out of reach: append through
        Spark instead."""
        storage = self.storage(name)
        if storage is None:
            return False
        schema = _arrow_schema(columns)
        if schema is None:
            LOG.info("landing %s through Spark: a column type has no Arrow form here", name)
            return False
        table = data.cast(schema)
        file_id = uuid.uuid4().hex
        temporary = f"{storage.directory}/{TEMPORARY_PREFIX}{file_id}{TEMPORARY_SUFFIX}"
        final = f"{storage.directory}/part-oracdc-{file_id}.snappy.parquet"
        try:
            pq.write_table(table, temporary, filesystem=storage.filesystem, compression="snappy")
            _publish(storage.filesystem, temporary, final)
        except BaseException:
            _remove_quietly(storage.filesystem, temporary)
            raise
        if self._stale is None:
            session_catalog.refresh_table(self._spark, *split_qualified(name))
        else:
            self._stale.add(name)
        return True

    @contextlib.contextmanager
    def refreshes_deferred(self) -> Iterator[None]:
        """Inside the block each table that receives files is refreshed once, at its end
        (also when the block fails, then without masking the failure), or before this
        process reads it (:meth:`refresh`). Nested blocks join the outer one."""
        if self._stale is not None:
            yield
            return
        self._stale = set()
        try:
            yield
        except BaseException:
            with contextlib.suppress(Exception):
                self.refresh()
            raise
        else:
            self.refresh()
        finally:
            self._stale = None

    def refresh(self, name: str | None = None) -> None:
        """Refresh Spark's view of table ``name`` (or of every table) if files landed in it
        since its last refresh (inside :meth:`refreshes_deferred`)."""
        if not self._stale:
            return
        names = sorted(self._stale) if name is None else [name] if name in self._stale else []
        failure: Exception | None = None
        for stale in names:  # every one tried: a failure leaves none of the others stale
            try:
                session_catalog.refresh_table(self._spark, *split_qualified(stale))
            except Exception as error:  # raised once every table was tried
                failure = failure or error
            else:
                self._stale.discard(stale)
        if failure is not None:
            raise failure

    def storage(self, name: str) -> TableStorage | None:
        """The storage of table ``name`` when this process can write to it, else None
        (looked up once per table and process; leftovers of a crashed write removed)."""
        if name in self._storage:
            return self._storage[name]
        storage = self._reachable_storage(name)
        self._storage[name] = storage
        return storage

    def _reachable_storage(self, name: str) -> TableStorage | None:
        location = self._location(name)
        if location is None:
            LOG.info("landing %s through Spark: the table has no location", name)
            return None
        try:
            filesystem, directory = pafs.FileSystem.from_uri(location)
            info = filesystem.get_file_info(directory)
        except (pa.ArrowException, OSError, ValueError) as error:
            LOG.info("landing %s through Spark: %s is out of reach (%s)", name, location, error)
            return None
        if info.type != pafs.FileType.Directory:
            LOG.info("landing %s through Spark: %s is not a directory here", name, location)
            return None
        storage = TableStorage(filesystem, directory.rstrip("/"))
        _remove_leftovers(storage)
        LOG.info("landing %s as Parquet files written here into %s", name, location)
        return storage

    def _location(self, name: str) -> str | None:
        return self._location_of(name)

    def _catalog_location(self, name: str) -> str | None:
        return session_catalog.table_location(self._spark, *split_qualified(name))


def _arrow_schema(columns: Columns) -> pa.Schema | None:
    fields = []
    for column, spark_type in columns:
        arrow = arrow_type(spark_type)
        if arrow is None:
            return None
        fields.append(pa.field(column, arrow))
    return pa.schema(fields)


def _publish(filesystem: pafs.FileSystem, temporary: str, final: str) -> None:
    """Make a written file part of the table: one rename (atomic on local disks and HDFS;
    a copy of one object on object stores, which readers see whole or not at all)."""
    filesystem.move(temporary, final)


def _remove_leftovers(storage: TableStorage) -> None:
    selector = pafs.FileSelector(storage.directory, recursive=False)
    cutoff = time.time() - LEFTOVER_AGE_SECONDS
    for info in storage.filesystem.get_file_info(selector):
        name = info.base_name
        if not (name.startswith(TEMPORARY_PREFIX) and name.endswith(TEMPORARY_SUFFIX)):
            continue
        if info.mtime is None or info.mtime.timestamp() < cutoff:
            LOG.info("removing %s, left by a landing that did not finish", info.path)
            _remove_quietly(storage.filesystem, info.path)


def _remove_quietly(filesystem: pafs.FileSystem, path: str) -> None:
    with contextlib.suppress(OSError):  # FileNotFoundError too
        filesystem.delete_file(path)
