"""Errors raised while assembling LogMiner rows into committed transactions.

Each carries the transaction id, the SCN and (where there is one) the raw SQL_REDO text, so
that the one-line message printed by the command line is enough to find the redo record.
"""

from __future__ import annotations

from extractor.errors import OracdcError

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
