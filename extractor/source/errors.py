"""Errors every source raises on purpose; each names the SCN range or table and the fix."""

from __future__ import annotations

from extractor.errors import OracdcError


class SourceError(OracdcError):
    """A source failed in a way the user must act on."""


class SourceConnectionError(SourceError):
    """The source database cannot be reached or the connection was lost."""


class MissingRedoLogError(SourceError):
    """Redo needed to mine an SCN range is gone (purged archive log, ORA-01291): changes in
    that range cannot be read, so replication cannot continue without a new snapshot."""

    def __init__(self, first_scn: int, last_scn: int | None, detail: str) -> None:
        upto = "the current SCN" if last_scn is None else str(last_scn)
        super().__init__(
            f"redo for SCN {first_scn} to {upto} is not available: {detail}",
            fix="restore the missing archived logs, or re-snapshot the tables "
            "(oracdc snapshot --force) so that streaming restarts after the gap",
        )
        self.first_scn = first_scn
        self.last_scn = last_scn


class SnapshotTooOldError(SourceError):
    """A snapshot read AS OF an SCN whose undo is gone (ORA-01555) or not yet valid."""

    def __init__(self, table: str, scn: int, detail: str) -> None:
        super().__init__(
            f"cannot read {table} as of SCN {scn}: {detail}",
            fix="restart the snapshot at a newer SCN (oracdc snapshot --force), or raise "
            "UNDO_RETENTION so that a snapshot of this size can finish",
        )
        self.table = table
        self.scn = scn


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
