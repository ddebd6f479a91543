"""One literal of a SQL_REDO statement, kept verbatim, and its kind.

The kind is read from the text's first character (the grammar makes that unambiguous),
so building a literal costs nothing beyond the tuple.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import NamedTuple


class LiteralKind(StrEnum):
    STRING = "string"  # 'text' with '' doubled
    NULL = "null"  # NULL, or the IS NULL predicate
    NUMBER = "number"  # an unquoted number
    FUNCTION = "function"  # TO_DATE(...), HEXTORAW(...), UNISTR(...), EMPTY_CLOB(), ...
    CONCAT = "concat"  # term || term ...
    UNSUPPORTED = "unsupported"  # the bare token Unsupported Type


class UnsupportedValue:
    """The value of a column LogMiner rendered as ``Unsupported Type``: not NULL, unknown."""

    _instance: UnsupportedValue | None = None

    def __new__(cls) -> UnsupportedValue:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSUPPORTED"


UNSUPPORTED = UnsupportedValue()

# A single complete string literal (no concatenation after it).
_ONE_STRING = re.compile(r"'(?:[^']++|'')*+'")


class Literal(NamedTuple):
    """A literal exactly as it stands in the statement (``text``)."""

    text: str

    @property
    def kind(self) -> LiteralKind:
        return literal_kind(self.text)

    @property
    def is_null(self) -> bool:
        return self.text == "NULL" or self.text == "IS NULL"

    def string_value(self) -> str | None:
        """The raw value as `oracdc parse-redo --raw` shows it: a string literal without
        its quotes and with ``''`` unescaped, None for NULL and Unsupported Type, the
        verbatim text for anything else."""
        kind = literal_kind(self.text)
        if kind is LiteralKind.STRING:
            return unquote(self.text)
        if kind is LiteralKind.NULL or kind is LiteralKind.UNSUPPORTED:
            return None
        return self.text


NULL_LITERAL = Literal("NULL")
IS_NULL_LITERAL = Literal("IS NULL")
UNSUPPORTED_LITERAL = Literal("Unsupported Type")


def literal_kind(text: str) -> LiteralKind:
    first = text[0]
    if first == "'":
        return LiteralKind.STRING if _ONE_STRING.fullmatch(text) else LiteralKind.CONCAT
    if text == "NULL" or text == "IS NULL" or text.upper() == "NULL":
        return LiteralKind.NULL
    if first.isdigit() or first in "-+.":
        return LiteralKind.NUMBER
    if text.startswith("Unsupported"):
        return LiteralKind.UNSUPPORTED
    if _has_top_level_concat(text):
        return LiteralKind.CONCAT
    return LiteralKind.FUNCTION


def unquote(text: str) -> str:
    """``'Bob''s'`` -> ``Bob's``."""
    inner = text[1:-1]
    return inner.replace("''", "'") if "''" in inner else inner


def concat_terms(text: str) -> list[str]:
    """The terms of ``a || b || c`` (quotes respected), each verbatim."""
    terms: list[str] = []
    start = 0
    depth = 0
    in_string = False
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if in_string:
            if ch == "'":
                if i + 1 < n and text[i + 1] == "'":
                    i += 1
                else:
                    in_string = False
        elif ch == "'":
            in_string = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0 and text.startswith("||", i):
            terms.append(text[start:i].strip())
            i += 2
            start = i
            continue
        i += 1
    terms.append(text[start:].strip())
    return terms


def _has_top_level_concat(text: str) -> bool:
    return "||" in text and len(concat_terms(text)) > 1


__all__ = [
    "IS_NULL_LITERAL",
    "NULL_LITERAL",
    "UNSUPPORTED",
    "UNSUPPORTED_LITERAL",
    "Literal",
    "LiteralKind",
    "UnsupportedValue",
    "concat_terms",
    "literal_kind",
    "unquote",
]
