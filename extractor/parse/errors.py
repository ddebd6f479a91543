"""The two deliberate failures of the parse stage: unreadable text, untypable value."""

from __future__ import annotations

from extractor.errors import OracdcError

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
