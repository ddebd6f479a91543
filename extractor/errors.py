"""Every error the product raises on purpose: one catalogue, one hierarchy under
:class:`OracdcError`.

Each carries what a user needs to act: what failed, on which object, and the fix. The command
line prints ``OracdcError.one_line()`` (plus the fix) unless ``--debug``. A few errors are also
``ValueError`` for the code that reads values (dictionary entries, types, bundle values, date
formats). Driver errors are translated at the source (``source/oracle/driver_errors.py``); the
simulator raises python-oracledb's own exceptions (``sim/oracle_errors.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from extractor.parse.redo_statement import ParsedRedo


class OracdcError(Exception):
    """An expected failure with a message for the user and, when known, the fix."""

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{text} (fix: {self.fix})" if self.fix else text


# -- configuration -------------------------------------------------------------------------


class ConfigError(OracdcError):
    """The configuration file is missing, unreadable or invalid."""


class NotifyConfigError(OracdcError):
    """The ``notify`` section of oracdc.yml is invalid."""


# -- dictionary and types ------------------------------------------------------------------


class DictionaryError(OracdcError, ValueError):
    """A dictionary entry that does not follow the contract."""


class NumberChoiceError(OracdcError, ValueError):
    """A value a column's ``number_as: decimal(38,s)`` cannot hold (more than 38-s digits before
    the point): a change carrying one is quarantined, a snapshot meeting one fails."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            fix="choose a smaller scale, double or string for this column (number_as, "
            "docs/types.md)",
        )


class UnsupportedTypeError(OracdcError, ValueError):
    """An Oracle type the product does not replicate (XMLTYPE, BFILE, object types...)."""


# -- sources -------------------------------------------------------------------------------


class SourceError(OracdcError):
    """A source failed in a way the user must act on."""


class SourceConnectionError(SourceError):
    """The source database cannot be reached or the connection was lost."""


class SourceIncarnationError(SourceError):
    """The source is another database, or another incarnation of it (OPEN RESETLOGS), than
    the one the checkpoint's positions and the landed changes are from."""


class MissingRedoLogError(SourceError):
    """Redo needed to mine an SCN range is gone (purged archive log, ORA-01291): changes in
    that range cannot be read, so replication cannot continue without a new snapshot."""

    def __init__(self, first_scn: int, last_scn: int | None, detail: str) -> None:
        upto = "the current SCN" if last_scn is None else str(last_scn)
        super().__init__(
            f"redo for SCN {first_scn} to {upto} is not available: {detail}",
            fix="restore the missing archived logs, or snapshot the tables again (`oracdc "
            "snapshot --force`; `snapshot_mode: when_needed` does it by itself) so that "
            "streaming restarts after the gap",
        )
        self.first_scn = first_scn
        self.last_scn = last_scn
        self.detail = detail


class SnapshotTooOldError(SourceError):
    """A snapshot read AS OF an SCN whose undo is gone (ORA-01555) or not yet valid."""

    def __init__(self, table: str, scn: int, detail: str, *, fix: str | None = None) -> None:
        super().__init__(
            f"cannot read {table} as of SCN {scn}: {detail}",
            fix=fix
            or "restart the snapshot at a newer SCN (oracdc snapshot --force), or raise "
            "UNDO_RETENTION so that a snapshot of this size can finish",
        )
        self.table = table
        self.scn = scn


class ScnNotYetValidError(SnapshotTooOldError):
    """A read AS OF an SCN the database does not have yet (ORA-08181): a wrong SCN, or one
    not yet known to the instance that answers (RAC)."""


class TableDefinitionChangedError(SnapshotTooOldError):
    """A snapshot read AS OF an SCN the table's definition is not older than (ORA-01466):
    DDL after it, or just before it (Oracle maps SCNs to times a few seconds apart and wants
    the definition older than the query's time). A newer SCN reads it."""

    def __init__(self, table: str, scn: int, detail: str) -> None:
        super().__init__(
            table,
            scn,
            detail,
            fix="none needed: the table is snapshotted again at a newer SCN (this cycle once "
            "more, then each cycle until Oracle reads it: Oracle asks for a few seconds, up to "
            "minutes, after DDL on the table); if it repeats for long, look for DDL on the "
            "table every few minutes (partition maintenance, a TRUNCATE job)",
        )


class UnfetchableValueError(SourceError):
    """A snapshot read met a value python-oracledb cannot build in Python: a DATE or TIMESTAMP
    before 1 AD (Python's ``datetime`` starts at year 1; so do Spark's dates)."""

    def __init__(self, table: str, columns: Sequence[str], detail: str) -> None:
        where = f" (one of {', '.join(columns)})" if columns else ""
        super().__init__(
            f"cannot fetch a value of {table}{where}: {detail}; a DATE or TIMESTAMP before "
            "1 AD, which Spark cannot hold either",
            fix="correct the value in Oracle, or leave the column out with a column policy "
            "(columns: exclude, docs/configuration.md); docs/types.md",
        )
        self.table = table


class TableNotFoundError(SourceError):
    """A configured table does not exist or is not visible to the extractor's user."""

    def __init__(self, table: str, detail: str = "") -> None:
        super().__init__(
            f"table {table} does not exist or is not visible{': ' + detail if detail else ''}",
            fix="check the table name in oracdc.yml and grant SELECT and FLASHBACK on it",
        )
        self.table = table


class SourceQueryError(SourceError):
    """An Oracle error the source does not handle specially, with the statement it came from."""

    def __init__(self, statement: str, full_code: str, message: str) -> None:
        super().__init__(f"{statement} failed with {full_code}: {message}")
        self.statement = statement
        self.full_code = full_code


class InvalidRowidError(OracdcError):
    """Text that is not an 18-character extended ROWID."""


class OracleIdentifierError(SourceError):
    """A name that cannot be used as a quoted Oracle identifier."""


class BundleError(OracdcError):
    """A bundle that does not follow ``oracdc-replay/1``; names the file and line."""

    def __init__(self, path: Path, problem: str, line: int | None = None) -> None:
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(
            f"bad replay bundle: {where}: {problem}",
            fix="correct the file as docs/replay-bundle.md describes (or record it again)",
        )
        self.path = path
        self.line = line


class ValueCodecError(OracdcError, ValueError):
    """A bundle value that does not follow the encoding of its column's type."""


# -- transaction assembly ------------------------------------------------------------------


_RAW_PREVIEW = 200


def _preview(raw: str | None) -> str:
    if raw is None:
        return "None"
    return repr(raw if len(raw) <= _RAW_PREVIEW else raw[:_RAW_PREVIEW] + "...")


class AssemblyError(OracdcError):
    """Base of every transaction assembly failure."""

    def __init__(
        self,
        message: str,
        *,
        xid: str | None = None,
        scn: int | None = None,
        raw: str | None = None,
        fix: str | None = None,
    ) -> None:
        details = []
        if xid is not None:
            details.append(f"xid={xid}")
        if scn is not None:
            details.append(f"scn={scn}")
        if raw is not None:
            details.append(f"sql_redo={_preview(raw)}")
        text = f"{message} ({', '.join(details)})" if details else message
        super().__init__(text, fix=fix)
        self.xid = xid
        self.scn = scn
        self.raw = raw


class IncompleteContinuationError(AssemblyError):
    """The input ended inside a CSF continuation chain (CSF=1 rows without their CSF=0 row)."""

    def __init__(self, *, xid: str, scn: int, rs_id: str, ssn: int, pieces: int) -> None:
        super().__init__(
            f"the mining window ended inside a CSF continuation chain of {pieces} piece(s) "
            f"at RS_ID {rs_id.strip()!r} SSN {ssn}",
            xid=xid,
            scn=scn,
            fix=f"end the mining window before SCN {scn} (ContinuationJoiner(hold_incomplete="
            "True) does this) or widen it so the chain is complete",
        )
        self.rs_id = rs_id
        self.ssn = ssn
        self.pieces = pieces


class BrokenContinuationError(AssemblyError):
    """A CSF chain was interrupted by a row of another redo record."""

    def __init__(self, *, xid: str, scn: int, rs_id: str, ssn: int, found_rs_id: str) -> None:
        super().__init__(
            f"CSF continuation chain at RS_ID {rs_id.strip()!r} SSN {ssn} was followed by a row "
            f"of RS_ID {found_rs_id.strip()!r} before its final (CSF=0) piece",
            xid=xid,
            scn=scn,
            fix="check that the V$LOGMNR_CONTENTS query is ordered as LogMiner returns it "
            "(no ORDER BY, no filter that can drop continuation rows)",
        )


class RedoGapError(AssemblyError):
    """LogMiner reported a hole in the redo stream (MISSING_SCN row, ORA-01291)."""

    def __init__(self, *, xid: str, scn: int, status: int, info: str | None) -> None:
        super().__init__(
            f"LogMiner reported missing redo (MISSING_SCN row, STATUS {status}"
            + (f", INFO {info!r}" if info else "")
            + "): changes in this range are lost to the log reader",
            xid=xid,
            scn=scn,
            fix="restore the missing archive log and re-run, or re-snapshot the replicated "
            "tables ('oracdc snapshot') to start again from a consistent SCN",
        )
        self.status = status


class SpillError(AssemblyError):
    """A spill file could not be written or read back."""

    def __init__(self, message: str, *, xid: str, path: str) -> None:
        super().__init__(
            f"{message}: spill file {path}",
            xid=xid,
            fix="check free space and permissions of the spill directory, "
            "or raise the memory budget",
        )
        self.path = path


class MiningProcessError(AssemblyError):
    """The mining process (``mining.reader: process``) stopped or failed in a way that
    cannot be told as one of the errors above."""

    def __init__(self, message: str) -> None:
        super().__init__(
            message,
            fix="see <data_dir>/logs/mining-process.log; set mining.reader: inline in "
            "oracdc.yml to mine in the extracting process",
        )


# -- parsing SQL_REDO ----------------------------------------------------------------------


_EXCERPT = 60


class RedoParseError(OracdcError):
    """A SQL_REDO statement that cannot be split into columns and literals.

    Carries the raw statement and the character position where reading stopped; the
    parser never returns a partial result instead of raising this.
    """

    def __init__(self, reason: str, sql: str, position: int) -> None:
        self.reason = reason
        self.sql = sql
        self.position = position
        near = sql[position : position + _EXCERPT]
        super().__init__(
            f"cannot parse SQL_REDO at position {position} ({reason}) near {near!r}",
            fix="quarantine the row (it is kept with its raw text) and report the statement",
        )


class AmbiguousRedoError(RedoParseError):
    """A statement with undoubled apostrophes that more than one reading fits equally well
    (the same number of columns). ``readings`` holds them (``ParsedRedo`` each): a caller
    that can read the row from the source ``AS OF`` its SCN may still tell which is right."""

    def __init__(self, sql: str, position: int, readings: tuple[ParsedRedo, ...]) -> None:
        self.readings = readings
        super().__init__(
            "ambiguous: an undoubled apostrophe allows more than one split", sql, position
        )


class ValueTypingError(OracdcError):
    """A literal that cannot be turned into a value of its column's Oracle type."""

    def __init__(self, reason: str, *, column: str, data_type: str, literal: str) -> None:
        self.reason = reason
        self.column = column
        self.data_type = data_type
        self.literal = literal
        super().__init__(
            f"column {column!r} ({data_type}): cannot type literal {literal[:80]!r}: {reason}",
            fix="check the NLS settings the SQL_REDO was rendered with and the dictionary",
        )


class DatetimeFormatError(OracdcError, ValueError):
    """Text that does not follow the format model, or a model element we do not read."""


# -- landing -------------------------------------------------------------------------------


class LandingError(OracdcError):
    """A batch that cannot be landed as given."""


class SparkIdentifierError(LandingError):
    """A schema or table name that cannot be used safely in Spark SQL."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(
            f"{kind} name {name!r} is not a plain Spark identifier "
            "(lower-case letters, digits, _, $, #; not starting with a digit)",
            fix=f"rename the {kind} or exclude it from replication",
        )
        self.kind = kind
        self.name = name


class StagingSchemaError(LandingError):
    """A staging table whose existing columns contradict the dictionary."""


# -- state (checkpoint) --------------------------------------------------------------------


class CheckpointError(OracdcError):
    """The checkpoint file cannot be used."""

    def __init__(self, message: str, *, path: Path, fix: str | None = None) -> None:
        super().__init__(f"checkpoint {path}: {message}", fix=fix)
        self.path = path


class CheckpointCorruptError(CheckpointError):
    """The checkpoint file exists but does not hold a checkpoint this version can read."""


class CheckpointLockedError(CheckpointError):
    """Another process holds the data directory."""


# -- the extraction loop and sync ----------------------------------------------------------


class QuarantineError(OracdcError):
    """Changes could not be applied and the error policy is ``fail``."""


class PreflightError(OracdcError):
    """The source is not ready for capture (a pre-flight check failed)."""


class SyncStepError(OracdcError):
    """A step of a sync cycle failed."""

    def __init__(self, step: str, reason: str, *, table: str | None = None, fix: str | None = None):
        where = f" ({table})" if table else ""
        super().__init__(f"step {step}{where} failed: {reason}", fix=fix)
        self.step = step
        self.table = table


# -- dbt files -----------------------------------------------------------------------------


class GenerationError(OracdcError):
    """The generator cannot write the dbt files (bad input, unwritable project)."""


class DictionaryFileError(GenerationError):
    """A ``dictionary.json`` that cannot be read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"dictionary file {path}: {reason}",
            fix="pass a replay-bundle dictionary.json ({'tables': [...]}; docs/replay-bundle.md)",
        )
        self.path = path


# -- verify --------------------------------------------------------------------------------


class VerifyError(OracdcError):
    """Verification could not run (not: differences were found)."""


# -- command line --------------------------------------------------------------------------


class ParseRedoInputError(OracdcError):
    """A --dictionary or --nls file that cannot be read."""


# -- simulator -----------------------------------------------------------------------------


class SimUsageError(OracdcError):
    """The simulator was asked to do something it does not model (e.g. a lock wait)."""
