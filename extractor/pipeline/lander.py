"""Landing for both runners: a batch id reserved durably before its data lands, the batch
written to its staging table (with the schema history and the quarantined rows), the error
policy applied, and what landed reported to the statistics.

The checkpoint that covers landed data is the runners' to write, after the data has landed
(``docs/extraction.md``, "Checkpoint and crashes").
"""

from __future__ import annotations

import dataclasses
import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime

import pyarrow as pa
from msgspec.structs import replace

from extractor.change_record import ChangeRecord
from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import LandingError, QuarantineError
from extractor.land.audit_records import QuarantinedChange, SchemaChange
from extractor.land.change_batch import change_batch, snapshot_batch
from extractor.land.column_masking import mask_batch, read_salt
from extractor.land.staging_schema import staging_arrow_schema
from extractor.land.staging_writer import StagingWriter
from extractor.pipeline.fault_points import FaultHook, FaultPoint
from extractor.pipeline.stats_observer import StatsObserver
from extractor.pipeline.table_registry import TableRegistry
from extractor.staging_contract import METADATA_COLUMN_NAMES, spark_column_name
from extractor.state.checkpoint import CheckpointStore

LOG = logging.getLogger(__name__)

# One table's change records per (owner, table), as a window collects them.
ChangesByTable = dict[tuple[str, str], list[ChangeRecord]]

# The reason of a quarantined change of a table with excluded or masked columns: reasons
# quote values, so neither the reason nor the statement is kept.
WITHHELD_REASON = (
    "reason and statement withheld: the table has excluded or masked columns; the change is "
    "in V$LOGMNR_CONTENTS at this scn, rs_id and ssn"
)


class Lander:
    """Writes batches to the staging tables through ``writer``, each under a new batch id."""

    def __init__(
        self,
        config: OracdcConfig,
        writer: StagingWriter,
        store: CheckpointStore,
        registry: TableRegistry,
        observer: StatsObserver,
        *,
        now: Callable[[], datetime],
        fault: FaultHook,
    ) -> None:
        self._config = config
        self._writer = writer
        self._store = store
        self._registry = registry
        self._observer = observer
        self._now = now
        self._fault = fault
        # read once, before anything lands; never logged
        self._salt = read_salt(config.columns.salt_env) if config.columns.hashes else b""

    def land_snapshot_chunk(self, table: TableDef, batch: pa.RecordBatch, snapshot_scn: int) -> int:
        """One chunk of a table's snapshot; returns its batch id. Staging's columns dropped
        from the source (not in the table the registry knows now) land NULL."""
        batch_id = self._store.reserve_batch_id()
        now = self._now()
        current = self._registry.lookup(table.owner, table.name) or table
        self._append(table, lambda shape: snapshot_batch(
            shape, batch, snapshot_scn=snapshot_scn, snapshot_ts=now, batch_id=batch_id,
            extracted_at=now, read=current,
        ))  # fmt: skip
        self._observer.snapshot_chunk_landed(table.qualified_name, batch.num_rows, batch_id)
        self._fault(FaultPoint.SNAPSHOT_AFTER_LAND)
        return batch_id

    def land_reset_marker(self, table: TableDef, snapshot_scn: int) -> None:
        """A reset marker at (S, S, 0) after a snapshot's last chunk: every version of the
        table older than the snapshot (a previous snapshot's rows, changes before a
        re-snapshot, keys deleted in between) is retired; the snapshot's own rows, at the same
        position, stay. Landed before the snapshot is marked done: a crash lands it again
        (idempotent)."""
        now = self._now()
        marker = _snapshot_reset_marker(table.owner, table.name, snapshot_scn, now)
        batch_id = self._store.reserve_batch_id()
        self._append(
            table, lambda shape: change_batch(shape, [marker], batch_id=batch_id, extracted_at=now)
        )
        self._observer.reset_marker_landed(table.qualified_name, batch_id)

    def land_reset_marker_of_a_dropped_table(self, owner: str, name: str, scn: int) -> None:
        """A reset marker at (S, S, 0) for a table the source no longer has, whose snapshot
        was still to come: its replica is emptied (nothing when it never landed a row)."""
        if not self._writer.has_staging_table(owner, name):
            return
        now = self._now()
        marker = _snapshot_reset_marker(owner, name, scn, now)
        batch_id = self._store.reserve_batch_id()
        self._land_resets_of_a_dropped_table(owner, name, [marker], batch_id, now)

    def land_changes(
        self,
        records: ChangesByTable,
        errors: list[QuarantinedChange],
        ddl: list[SchemaChange],
    ) -> None:
        """A window's (or a slice of it) changes, schema history and quarantined rows under
        one batch id; QuarantineError after landing when rows were quarantined and the error
        policy is ``fail``."""
        if not records and not errors and not ddl:
            return
        batch_id = self._store.reserve_batch_id()
        now = self._now()
        if ddl:
            self._writer.append_schema_history(ddl, batch_id=batch_id, extracted_at=now)
        for (owner, name), table_records in sorted(records.items()):
            table = self._registry.lookup(owner, name)
            if table is None:
                self._land_resets_of_a_dropped_table(owner, name, table_records, batch_id, now)
                continue
            table_records = self._without_excluded_columns(table, table_records)
            table_records = self._without_dropped_columns(table, table_records)
            build = functools.partial(
                change_batch, records=table_records, batch_id=batch_id, extracted_at=now
            )
            self._append(table, build)
            last = max(table_records, key=lambda r: r.commit_scn)
            self._observer.changes_landed(
                table.qualified_name, len(table_records), last.commit_scn, last.commit_ts, batch_id
            )
            self._fault(FaultPoint.STREAM_AFTER_LAND_TABLE)
        self._observer.batch_landed(batch_id)  # also a batch of only errors or DDL
        if errors:
            self._land_errors(errors, batch_id, now)

    def _land_resets_of_a_dropped_table(
        self,
        owner: str,
        name: str,
        records: list[ChangeRecord],
        batch_id: int,
        now: datetime,
    ) -> None:
        """Records of a table the source no longer has (dropped) and this process never
        described: its DROP TABLE's reset marker lands with every column of the table NULL
        (it carries no value); other records need the table's column types and are left
        out, said in the log (they are older than the drop, which retires them)."""
        resets = [r for r in records if r.op == "t"]
        if len(resets) < len(records):
            LOG.warning(
                "%s.%s is not in the source's dictionary: %d change(s) before its DROP TABLE "
                "are not landed (the drop retires them)",
                owner, name, len(records) - len(resets),
                extra={"table": f"{owner}.{name}"},
            )  # fmt: skip
        if not resets:
            return
        without_columns = TableDef(owner, name, (), (), "MINIMAL")
        data = change_batch(without_columns, resets, batch_id=batch_id, extracted_at=now)
        self._writer.append(without_columns, data)
        last = resets[-1]
        self._observer.changes_landed(
            without_columns.qualified_name, len(resets), last.commit_scn, last.commit_ts, batch_id
        )

    def _append(self, table: TableDef, build: Callable[[TableDef], pa.Table]) -> None:
        """Build a batch of ``table`` in its source types (``build`` gets the shape), mask it
        by the column policy and append it to the staging table."""
        staging = self._registry.staging_def(table)
        with self._values_withheld(table):
            data = build(self._registry.unmasked_staging_def(table))
        self._writer.append(staging, self._masked(table, staging, data))

    @contextmanager
    def _values_withheld(self, table: TableDef) -> Iterator[None]:
        """A LandingError of a table with excluded or masked columns without its message:
        building a batch fails on a value, and the message quotes it."""
        try:
            yield
        except LandingError as error:
            if self._registry.policy(table).is_plain:
                raise
            raise LandingError(
                f"{table.qualified_name}: a landing batch could not be built (details "
                "withheld: the table has excluded or masked columns)",
                fix=error.fix,
            ) from None

    def _masked(self, table: TableDef, staging: TableDef, data: pa.Table) -> pa.Table:
        masks = self._registry.policy(table).masks
        if not masks:
            return data
        return mask_batch(data, masks, self._salt, staging_arrow_schema(staging))

    def _without_excluded_columns(
        self, table: TableDef, records: list[ChangeRecord]
    ) -> list[ChangeRecord]:
        """The records without the values of columns the policy excludes (the parser reads
        them: it needs the whole dictionary)."""
        excluded = self._registry.policy(table).excluded
        if not excluded:
            return records
        return [
            replace(r, values={k: v for k, v in r.values.items() if k not in excluded})
            if not excluded.isdisjoint(r.values)
            else r
            for r in records
        ]

    def _withheld(self, error: QuarantinedChange) -> QuarantinedChange:
        """``error`` without its statement and reason when a ``columns`` entry names its table
        (by name: the table may be gone from the dictionary) or its table is not known by
        name (an unnamed object, while entries exist): their raw values never land."""
        rules = [rule for rule in self._config.columns.rules if rule.hides_values]
        if not rules:
            return error
        owner, name = error.owner or "", error.table_name or ""
        named = bool(owner and name) and not name.startswith(("OBJ# ", "BIN$"))
        if named and not any(rule.matches_table(owner, name) for rule in rules):
            return error
        return dataclasses.replace(error, sql_redo=None, reason=WITHHELD_REASON)

    def _land_errors(self, errors: list[QuarantinedChange], batch_id: int, now: datetime) -> None:
        errors = [self._withheld(error) for error in errors]
        self._writer.append_errors(errors, batch_id=batch_id, extracted_at=now)
        for error in errors:
            self._observer.quarantined(f"{error.owner}.{error.table_name}")
        first = errors[0]
        message = (
            f"{len(errors)} change(s) quarantined in {self._writer.schema}._oracdc_errors; "
            f"first: {first.owner}.{first.table_name} SCN {first.scn}: {first.reason}"
        )
        if self._config.error_policy == "fail":
            raise QuarantineError(
                message,
                fix="inspect the errors table; set error_policy: warn to land the rest and go on",
            )
        if self._config.error_policy == "warn":
            LOG.warning("%s", message)
        else:  # skip: goes on without a warning; the errors table and the counts keep them
            LOG.info("%s", message)

    def _without_dropped_columns(
        self, table: TableDef, records: list[ChangeRecord]
    ) -> list[ChangeRecord]:
        """Full images become partial ones while staging keeps columns dropped in Oracle (or
        excluded since they landed), so the replica keeps their last values instead of
        receiving NULLs."""
        staged = {name for name, _ in self._writer.ensure_table(self._registry.staging_def(table))}
        current = {spark_column_name(c) for c in self._registry.replicated(table).column_names}
        if not (staged - current - set(METADATA_COLUMN_NAMES)):
            return records
        return [replace(r, full_image=False) if r.full_image else r for r in records]


def _snapshot_reset_marker(owner: str, table: str, scn: int, now: datetime) -> ChangeRecord:
    """The reset marker of a snapshot at ``scn``: at (S, S, 0), of no transaction."""
    return ChangeRecord(
        op="t", owner=owner, table=table, scn=scn, commit_scn=scn, redo_pos=0, rs_id=None,
        ssn=None, xid=None, row_id=None, commit_ts=now, values={}, full_image=False,
    )  # fmt: skip
