"""The SQL_REDO grammar LogMiner writes, as regular-expression fragments.

Every repetition that could otherwise backtrack into a literal is possessive or atomic,
so a statement matches in exactly one way, and a ``findall`` that resumes after each item
splits it exactly as a whole-statement match would.
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
# After an INSERT's closing parenthesis: stray apostrophes are read and ignored, as Debezium
# reads them (``values ('x')'``, ``values ('x')'';``, ``values ('x');'``: DBZ-4891's test).
INSERT_END = rf"\s*\)(?:\s*;?\s*'+)?{END}\Z"
# An alias after the table name: update "O"."T" a set a."C" = ...
TABLE_ALIAS = r"(?:\s+(?!(?i:set|where)\b)[A-Za-z_][\w$#]*+)?"

# Statement heads, up to the first value. Groups: owner, table (INSERT: column list).
INSERT_HEAD = re.compile(
    rf"\s*(?i:insert\s+into)\s+{TABLE}\s*\(\s*({IDENT}(?:\s*,\s*{IDENT})*+)\s*\)\s*"
    rf"(?i:values)\s*\(\s*"
)
UPDATE_HEAD = re.compile(rf"\s*(?i:update)\s+{TABLE}{TABLE_ALIAS}\s+(?i:set)\s+")
DELETE_HEAD = re.compile(rf"\s*(?i:delete\s+from)\s+{TABLE}{TABLE_ALIAS}\s+(?i:where)\s+")
# A DELETE with no WHERE clause at all (a session with NO_ROWID_IN_STMT, a table whose columns
# are all LOBs): the row is known only by V$LOGMNR_CONTENTS.ROW_ID. Groups: owner, table.
DELETE_WITHOUT_WHERE = re.compile(rf"\s*(?i:delete\s+from)\s+{TABLE}{TABLE_ALIAS}{END}\Z")

# The SET clause of an UPDATE with what ends it. Groups: set clause, where keyword.
SET_CLAUSE = re.compile(rf"({SET_PAIR}(?:\s*,\s*{SET_PAIR})*+)(?:(\s+(?i:where)\s+)|{END}\Z)")

# Items after a head: each match is one item *with* its separator, so that findall from
# the head's end reads the rest of the statement in one pass. The items are contiguous
# (nothing skipped) exactly when the lengths of their whole-match groups add up to the
# length of the rest; the caller checks that, and that only the last item ends it.
# Groups: whole item, value, separator comma (empty on the last value).
VALUE_ITEMS = re.compile(rf"({COMMENT}({VALUE})(?:\s*(,)\s*|{INSERT_END}))")
# Groups: whole item, column, value (empty for IS NULL), "and" separator (empty on the
# last predicate), rowid (only on a final ROWID predicate).
WHERE_ITEMS = re.compile(
    rf"({ALIAS}{IDENT_CAP}\s*(?:=\s*{COMMENT}({VALUE})|(?i:IS\s+NULL))(?:({AND})|{END}\Z)"
    rf"|{ROWID_PREDICATE}{END}\Z)"
)

# Splitters for clauses already validated.
COLUMN_NAMES = re.compile(IDENT_CAP)
SET_PAIRS = re.compile(rf"{ALIAS}{IDENT_CAP}\s*=\s*{COMMENT}({VALUE})")
