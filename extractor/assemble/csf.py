"""Join CSF continuation chains into one row.

When SQL_REDO is longer than 4000 bytes LogMiner splits it over several consecutive rows:
every piece but the last has CSF = 1, the last has CSF = 0, and all share RS_ID and SSN
(``docs/logminer.md`` §1). The joined row is the first piece with the concatenated
SQL_REDO and CSF = 0.

A mining window can end in the middle of a chain. :func:`join_continuations` raises
:class:`IncompleteContinuationError` then. :class:`ContinuationJoiner` with
``hold_incomplete=True`` instead holds the chain back *together with every other row of the
chain's SCN* (rows already yielded all have a lower SCN), and reports that SCN in
``resume_scn``: the window then counts as ending at ``resume_scn - 1`` and the next window
starts at ``resume_scn``, which re-delivers the held rows exactly once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from msgspec.structs import replace

from extractor.errors import BrokenContinuationError, IncompleteContinuationError
from extractor.logminer_row import LogMinerRow


def join_continuations(rows: Iterable[LogMinerRow]) -> Iterator[LogMinerRow]:
    """Yield ``rows`` with each CSF chain joined into one row; raise on a cut-off chain."""
    return ContinuationJoiner().join(rows)


class ContinuationJoiner:
    """Joins CSF chains of one mining window; optionally holds back a cut-off chain.

    After :meth:`join` is exhausted, ``resume_scn`` is ``None`` when the window ended cleanly,
    else the SCN the next window must start at (inclusive); ``held_rows`` counts the rows
    dropped from this window because of it.
    """

    __slots__ = ("_cut", "held_rows", "hold_incomplete", "resume_scn")

    def __init__(self, *, hold_incomplete: bool = False) -> None:
        self.hold_incomplete = hold_incomplete
        self.resume_scn: int | None = None
        self.held_rows = 0
        self._cut: list[LogMinerRow] = []

    def join(self, rows: Iterable[LogMinerRow]) -> Iterator[LogMinerRow]:
        self.resume_scn = None
        self.held_rows = 0
        self._cut = []
        if self.hold_incomplete:
            return self._join_holding_last_scn(rows)
        return self._join_strict(rows)

    def _join_strict(self, rows: Iterable[LogMinerRow]) -> Iterator[LogMinerRow]:
        yield from self._join_chains(rows)
        if self._cut:
            raise _incomplete(self._cut)

    def _join_holding_last_scn(self, rows: Iterable[LogMinerRow]) -> Iterator[LogMinerRow]:
        # Rows of the current SCN wait in `group` until a higher SCN shows they are complete.
        group: list[LogMinerRow] = []
        group_scn = -1
        for row in self._join_chains(rows):
            if row.scn != group_scn:
                yield from group
                group = []
                group_scn = row.scn
            group.append(row)
        if not self._cut:
            yield from group
            return
        resume_scn = self._cut[0].scn
        kept = [row for row in group if row.scn < resume_scn]
        self.resume_scn = resume_scn
        self.held_rows = len(group) - len(kept) + len(self._cut)
        yield from kept

    def _join_chains(self, rows: Iterable[LogMinerRow]) -> Iterator[LogMinerRow]:
        """Joined rows; a chain still open at the end of ``rows`` is left in ``self._cut``."""
        pieces: list[LogMinerRow] = []
        for row in rows:
            if row.csf:
                _check_continues(pieces, row)
                pieces.append(row)
            elif pieces:
                _check_continues(pieces, row)
                pieces.append(row)
                yield _joined(pieces)
                pieces = []
            else:
                yield row
        self._cut = pieces


def _check_continues(pieces: list[LogMinerRow], row: LogMinerRow) -> None:
    if pieces:
        first = pieces[0]
        if row.rs_id != first.rs_id or row.ssn != first.ssn or row.xid != first.xid:
            raise BrokenContinuationError(
                xid=first.xid,
                scn=first.scn,
                rs_id=first.rs_id,
                ssn=first.ssn,
                found_rs_id=row.rs_id,
            )


def _joined(pieces: list[LogMinerRow]) -> LogMinerRow:
    text = "".join(piece.sql_redo or "" for piece in pieces)
    return replace(pieces[0], sql_redo=text, csf=0)


def _incomplete(pieces: list[LogMinerRow]) -> IncompleteContinuationError:
    first = pieces[0]
    return IncompleteContinuationError(
        xid=first.xid, scn=first.scn, rs_id=first.rs_id, ssn=first.ssn, pieces=len(pieces)
    )
