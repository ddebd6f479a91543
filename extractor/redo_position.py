"""Where a change sits in the redo stream, defined once for every part that orders changes.

- :class:`RedoPosition`: a redo record's address, RS_ID (log sequence, block, offset) then SSN,
  parsed from V$LOGMNR_CONTENTS' padded RS_ID text. It orders the records of one redo thread;
  on RAC each thread has its own log sequences, so positions of two threads do not compare.
  :meth:`RedoPosition.packed` is the staging column ``_redo_pos`` (docs/landing.md): one
  integer in the order of the tuple, fields of 32, 32, 16 and 32 bits.
- :class:`CommitPosition`: a transaction's COMMIT row, commit SCN then redo position; the
  checkpoint's ``last_commit`` (JSON: ``commit_scn`` and ``redo_pos`` as text, since it
  exceeds 2**53) and the transaction buffer's ``emit_after``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from extractor.logminer_row import LogMinerRow

# Bit widths of the fields inside a packed position: sequence, block, offset, SSN.
_WIDTHS = (32, 32, 16, 32)
_SHIFTS = (80, 48, 32, 0)
_LIMITS = tuple(2**width for width in _WIDTHS)
if _SHIFTS != (80, 48, 32, 0):  # packed() spells the shifts out
    raise AssertionError("packed() is out of step with _SHIFTS")


class RedoPosition(NamedTuple):
    """(log sequence, block, offset, SSN) of a redo record (a tuple: orders as one)."""

    sequence: int
    block: int
    offset: int
    ssn: int

    @classmethod
    def of(cls, rs_id: str, ssn: int) -> RedoPosition:
        """From a padded RS_ID such as ``' 0x0073c9.000a4e4c.01d0 '`` and the row's SSN;
        ValueError when the RS_ID is not of that form."""
        text = rs_id.strip()
        if text.startswith(("0x", "0X")):
            text = text[2:]
        parts = text.split(".")
        if len(parts) != 3:
            raise ValueError(f"RS_ID {rs_id!r} is not of the form 0xSEQ.BLOCK.OFFSET")
        sequence, block, offset = (int(part, 16) for part in parts)
        return cls(sequence, block, offset, ssn)

    def packed(self) -> int:
        """One integer in the same order (the staging column ``_redo_pos``); ValueError when
        a field exceeds its width."""
        sequence, block, offset, ssn = self
        if not (
            0 <= sequence < _LIMITS[0]
            and 0 <= block < _LIMITS[1]
            and 0 <= offset < _LIMITS[2]
            and 0 <= ssn < _LIMITS[3]
        ):
            raise ValueError(f"redo position out of range: {tuple(self)}")
        return (sequence << 80) | (block << 48) | (offset << 32) | ssn

    @classmethod
    def unpacked(cls, number: int) -> RedoPosition:
        """The inverse of :meth:`packed`."""
        sequence, block, offset, ssn = (
            (number >> shift) & (2**width - 1)
            for width, shift in zip(_WIDTHS, _SHIFTS, strict=True)
        )
        return cls(sequence, block, offset, ssn)


# Above every real position (each field's maximum is below it).
_AFTER_EVERY_POSITION = RedoPosition(2**63 - 1, 2**63 - 1, 2**63 - 1, 2**63 - 1)


@dataclass(frozen=True, slots=True, order=True)
class CommitPosition:
    """Where a transaction committed: its COMMIT row's SCN, then that row's redo position.

    Orders the commits of one redo thread; on RAC two threads' positions at one SCN do not
    compare. The pipeline checkpoints the position of the last transaction it landed and,
    after a restart, skips every commit at or below its SCN (``after_scn``).
    """

    scn: int
    redo: RedoPosition

    @classmethod
    def of_commit_row(cls, row: LogMinerRow) -> CommitPosition:
        return cls(row.scn, RedoPosition.of(row.rs_id, row.ssn))

    @classmethod
    def after_scn(cls, scn: int) -> CommitPosition:
        """The position that every commit at or below ``scn`` is <= (whatever its redo
        thread): an ``emit_after`` that skips whole SCNs."""
        return cls(scn, _AFTER_EVERY_POSITION)

    def to_json(self) -> dict[str, Any]:
        # The packed position exceeds 2**53: written as text so that no JSON reader rounds it.
        return {"commit_scn": self.scn, "redo_pos": str(self.redo.packed())}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CommitPosition:
        scn = raw["commit_scn"]
        if isinstance(scn, bool) or not isinstance(scn, int):
            raise TypeError(f"commit_scn must be an integer, not {scn!r}")
        return cls(scn, RedoPosition.unpacked(int(str(raw["redo_pos"]))))
