"""The result of parsing one SQL_REDO statement."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from extractor.parse.literals import Literal

Operation = TypingLiteral["INSERT", "UPDATE", "DELETE"]


@dataclass(frozen=True, slots=True)
class ParsedRedo:
    """One INSERT, UPDATE or DELETE as LogMiner wrote it.

    ``new``: the INSERT values or the UPDATE SET clause; ``old``: the UPDATE or DELETE
    WHERE clause (without the ROWID predicate, which is ``rowid``). Both map column name
    -> literal in statement order; an ``IS NULL`` predicate is a NULL literal.
    ``recovered_quotes`` says that the text had apostrophes Oracle failed to double and
    that the split was recovered from the grammar and the column count.
    """

    operation: Operation
    owner: str | None
    table: str
    new: Mapping[str, Literal]
    old: Mapping[str, Literal]
    rowid: str | None = None
    recovered_quotes: bool = False

    @property
    def qualified_name(self) -> str:
        return f"{self.owner}.{self.table}" if self.owner is not None else self.table
