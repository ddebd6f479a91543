"""Parse LogMiner SQL_REDO text and type its literals for their Oracle columns.

Public entry points: :func:`parse_redo` (text -> :class:`ParsedRedo`) and
:func:`typed_row` / :func:`typed_value` (literals -> Python values, see ``spark_types``).
"""

from extractor.errors import RedoParseError, ValueTypingError
from extractor.parse.literals import UNSUPPORTED, Literal, LiteralKind, UnsupportedValue
from extractor.parse.redo_parser import parse_redo
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.value_typing import TypedRow, typed_row, typed_value

__all__ = [
    "UNSUPPORTED",
    "Literal",
    "LiteralKind",
    "ParsedRedo",
    "RedoParseError",
    "TypedRow",
    "UnsupportedValue",
    "ValueTypingError",
    "parse_redo",
    "typed_row",
    "typed_value",
]
