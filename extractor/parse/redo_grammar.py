"""The SQL_REDO grammar LogMiner writes, as regular-expression fragments.

Every repetition that could otherwise backtrack into a literal is possessive or atomic,
so a statement matches in exactly one way: validating a whole statement with one
``fullmatch`` and then splitting its clauses with ``findall`` give the same split.
"""

from __future__ import annotations

import re

IDENT = r'"(?:[^"]++|"")*+"'
IDENT_CAP = r'"((?:[^"]++|"")*+)"'
ALIAS = r"(?:[A-Za-z_][\w$#]*+\.)?"
STRING = r"'(?:[^']++|'')*+'"
NUMBER = r"[-+]?(?:\d++(?:\.\d*+)?|\.\d++)(?:[eE][-+]?\d++)?"
_ARG = rf"(?:{STRING}|{NUMBER})"
FUNCTION = rf"[A-Za-z_][\w$]*+\(\s*(?:{_ARG}(?:\s*,\s*{_ARG})*+)?\s*\)"
_TERM = rf"(?:{STRING}|{FUNCTION})"
VALUE = rf"(?>{_TERM}(?:\s*\|\|\s*{_TERM})*+|{NUMBER}|(?i:NULL)\b|Unsupported Type)"
COMMENT = r"(?:/\*(?s:.*?)\*/\s*)*+"

SET_PAIR = rf"{ALIAS}{IDENT}\s*=\s*{COMMENT}{VALUE}"
WHERE_PREDICATE = rf"{ALIAS}{IDENT}\s*(?:=\s*{COMMENT}{VALUE}|(?i:IS\s+NULL))"
AND = r"\s+(?i:and)\s+"
ROWID_PREDICATE = r"(?i:ROWID)\s*=\s*'([^']*+)'"
TABLE = rf"(?:{IDENT_CAP}\s*\.\s*)?{IDENT_CAP}"
END = r"\s*;?\s*"
# An alias after the table name: update "O"."T" a set a."C" = ...
TABLE_ALIAS = r"(?:\s+(?!(?i:set|where)\b)[A-Za-z_][\w$#]*+)?"

_WHERE_CLAUSE = (
    rf"(?:({WHERE_PREDICATE}(?:{AND}{WHERE_PREDICATE})*+)(?:{AND}{ROWID_PREDICATE})?"
    rf"|{ROWID_PREDICATE})"
)

# Groups: owner, table, column list, values list.
INSERT_STATEMENT = re.compile(
    rf"\s*(?i:insert\s+into)\s+{TABLE}\s*\(\s*({IDENT}(?:\s*,\s*{IDENT})*+)\s*\)\s*"
    rf"(?i:values)\s*\(\s*({COMMENT}{VALUE}(?:\s*,\s*{COMMENT}{VALUE})*+)\s*\){END}"
)
# Groups: owner, table, set clause, where predicates, rowid, rowid (where is ROWID only).
UPDATE_STATEMENT = re.compile(
    rf"\s*(?i:update)\s+{TABLE}{TABLE_ALIAS}\s+(?i:set)\s+({SET_PAIR}(?:\s*,\s*{SET_PAIR})*+)"
    rf"(?:\s+(?i:where)\s+{_WHERE_CLAUSE})?{END}"
)
# Groups: owner, table, where predicates, rowid, rowid (where is ROWID only).
DELETE_STATEMENT = re.compile(
    rf"\s*(?i:delete\s+from)\s+{TABLE}{TABLE_ALIAS}\s+(?i:where)\s+{_WHERE_CLAUSE}{END}"
)

# Splitters, applied only to clauses the statement patterns above have validated.
COLUMN_NAMES = re.compile(IDENT_CAP)
VALUES = re.compile(rf"{COMMENT}({VALUE})")
SET_PAIRS = re.compile(rf"{ALIAS}{IDENT_CAP}\s*=\s*{COMMENT}({VALUE})")
WHERE_PAIRS = re.compile(rf"{ALIAS}{IDENT_CAP}\s*(?:=\s*{COMMENT}({VALUE})|(?i:IS\s+NULL))")
