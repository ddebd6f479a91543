"""What a DDL row's SQL_REDO (the statement as issued) does to a replicated table: create it
again, empty it (TRUNCATE TABLE, DROP TABLE), move or change its rows without DML (MOVE,
SHRINK SPACE, partition maintenance, FLASHBACK TABLE, ADD of a column with a DEFAULT,
[NO] ROW ARCHIVAL),
change what its redo images carry (ADD / DROP SUPPLEMENTAL LOG) or rename it.
Leading comments and blanks are skipped; plain identifiers are upper-cased and quoted ones
kept, as Oracle reads them."""

from __future__ import annotations

import re

# Blanks and comments before the statement's first keyword; after its end, a semicolon too.
_LEADING = re.compile(r"(?:\s+|/\*.*?\*/|--[^\n]*(?:\n|$))*", re.DOTALL)
_TRAILING = re.compile(r"(?:\s|;|\x00|/\*(?:(?!\*/).)*\*/|--[^\n\"]*)*\Z", re.DOTALL)

_TABLE_RESET = re.compile(r"(?:truncate|drop)\s+table(?=[\s\"])", re.IGNORECASE)
_DROP_TABLE = re.compile(r"drop\s+table(?=[\s\"])", re.IGNORECASE)
_CREATE_TABLE = re.compile(
    r"create\s+(?:(?:global|private)\s+temporary\s+|sharded\s+|duplicated\s+|immutable\s+"
    r"|blockchain\s+)*table(?=[\s\"])",
    re.IGNORECASE,
)

# DDL that gives rows new ROWIDs, or changes rows, with no DML in the redo: a table MOVE or
# SHRINK SPACE, partition maintenance (move, split, merge, coalesce, exchange, drop, truncate
# of a (sub)partition; SHRINK SPACE of a partition, COALESCE or ADD of a (hash) subpartition
# in one, a table partitioned anew by MODIFY PARTITION BY), [NO] ROW ARCHIVAL (every row
# gets ORA_ARCHIVE_STATE '0', or loses it, with no redo of theirs assumed) and FLASHBACK
# TABLE. The table is snapshotted again after it.
_ROW_MOVING_DDL = re.compile(
    r"""(?:
        alter\s+table\s+(?:"[^"]+"|[^\s."]+)(?:\s*\.\s*(?:"[^"]+"|[^\s."]+))?\s+(?:
            move\b
            | shrink\s+space\b
            | (?:move|split|merge|coalesce|exchange|drop|truncate)\s+(?:sub)?partitions?\b
            | modify\s+(?:sub)?partition\s+(?:"[^"]+"|[^\s"]+)\s+
                (?:shrink\s+space|coalesce\s+subpartition|add\s+subpartition)\b
            | modify\s+partition\s+by\b
            | (?:no\s+)?row\s+archival\b
        )
        | flashback\s+table\s
    )""",
    re.IGNORECASE | re.VERBOSE,
)

# An identifier as Oracle reads it: quoted (kept as written) or plain (a letter, then letters,
# digits, _ $ #; upper-cased).
_IDENTIFIER = r'(?:"[^"]+"|[^\W\d_][\w$#]*)'

# ALTER TABLE … ADD of columns (not of a constraint, partition or log group): with a DEFAULT,
# Oracle (11g for NOT NULL columns, 12c for all) keeps the default as metadata and writes no
# redo for the existing rows, which read it from then on; an identity column is filled in
# the same way. Looked for in the statement's text without its comments and literals.
_ALTER_TABLE = re.compile(r"alter\s+table\b", re.IGNORECASE)
_ADD_COLUMNS = re.compile(
    r"""\badd\b\s*+(?!(?:constraint|partition|subpartition|supplemental|primary|unique|foreign
        |check|overflow|period)\b)""",
    re.IGNORECASE | re.VERBOSE,
)
# Comments, q-quoted and quoted text, quoted identifiers: one pass, left to right, so that a
# quote inside a comment (or a comment marker inside a string) is read as Oracle reads it.
_NOT_KEYWORDS = re.compile(
    r"""/\*.*?(?:\*/|\Z) | --[^\n]* | [nN]?[qQ]'(?:\[.*?\]|\{.*?\}|\(.*?\)|<.*?>|(\S).*?\1)'
        | '(?:[^']|'')*' | "[^"]*" """,
    re.DOTALL | re.VERBOSE,
)
# A DEFAULT that gives the rows a value (not DEFAULT NULL, DEFAULT '' or DEFAULT COLLATION),
# or an identity column.
_FILLS_ROWS = re.compile(r"\bdefault\b(?!\s*(?:null\b|''|collation\b))|\bidentity\b", re.IGNORECASE)
_ALTER_TABLE_RENAME = re.compile(
    rf"alter\s+table\s+(?:({_IDENTIFIER})\s*\.\s*)?({_IDENTIFIER})\s+rename\s+to\s+"
    rf"(?:{_IDENTIFIER}\s*\.\s*)?({_IDENTIFIER})\Z",
    re.IGNORECASE,
)
_RENAME = re.compile(rf"rename\s+({_IDENTIFIER})\s+to\s+({_IDENTIFIER})\Z", re.IGNORECASE)
# ALTER TABLE … ADD / DROP SUPPLEMENTAL LOG DATA (…) COLUMNS, … LOG GROUP.
_SUPPLEMENTAL_LOG = re.compile(
    r"""alter\s+table\s+(?:"[^"]+"|[^\s."]+)(?:\s*\.\s*(?:"[^"]+"|[^\s."]+))?\s+
        (?:add|drop)\s+supplemental\s+log\b""",
    re.IGNORECASE | re.VERBOSE,
)


def resets_table(sql_redo: str | None) -> bool:
    """True for a statement after which the table has no row: TRUNCATE TABLE, and DROP TABLE
    (a table created later under the name is snapshotted). ``ALTER TABLE … TRUNCATE
    PARTITION`` is not one: which rows it removed is not in redo."""
    return sql_redo is not None and _TABLE_RESET.match(_statement(sql_redo)) is not None


def drops_table(sql_redo: str | None) -> bool:
    """True for DROP TABLE: the table's OBJECT_ID is gone with it (TRUNCATE keeps it)."""
    return sql_redo is not None and _DROP_TABLE.match(_statement(sql_redo)) is not None


def creates_table(sql_redo: str | None) -> bool:
    """True for CREATE TABLE (of any kind, ``AS SELECT`` too, comments between its words):
    a new object under the name."""
    if sql_redo is None:
        return False
    return _CREATE_TABLE.match(_NOT_KEYWORDS.sub(_blanked, _statement(sql_redo))) is not None


def is_row_moving(sql_redo: str | None) -> bool:
    """True for a statement after which the table's ROWIDs or rows are no longer what its
    redo says: the replica can only be rebuilt by a new snapshot. Besides the DDL that moves
    rows, ``ALTER TABLE … ADD`` of a column with a DEFAULT: the existing rows hold the default
    with no redo of theirs."""
    if sql_redo is None:
        return False
    statement = _statement(sql_redo)
    return _ROW_MOVING_DDL.match(statement) is not None or _adds_column_with_default(statement)


def changes_supplemental_logging(sql_redo: str | None) -> bool:
    """True for ALTER TABLE … ADD or DROP SUPPLEMENTAL LOG (DATA or GROUP): the redo images
    of the table's updates carry other columns from then on. A drop and an add again leave
    the dictionary as it was, with images in between that may lack the primary key."""
    return sql_redo is not None and _SUPPLEMENTAL_LOG.match(_statement(sql_redo)) is not None


def _adds_column_with_default(statement: str) -> bool:
    """True for ALTER TABLE with an ADD of columns one of which has a DEFAULT (or is an
    identity column) after it. It errs towards True: a default add missed would leave the
    existing rows NULL in the replica, a wrong one only costs a snapshot."""
    if _ALTER_TABLE.match(statement) is None:
        return False
    keywords = _NOT_KEYWORDS.sub(_blanked, statement)
    added = _ADD_COLUMNS.search(keywords)
    return added is not None and _FILLS_ROWS.search(keywords, added.end()) is not None


def _blanked(found: re.Match[str]) -> str:
    """A comment or identifier as a blank; a literal as ``''`` when empty, else ``'x'``."""
    text = found.group(0)
    if text == "''":
        return text
    return "'x'" if text.endswith("'") else " "


def table_rename(sql_redo: str | None, owner: str | None) -> tuple[str, str, str] | None:
    """(owner, old name, new name) of ``ALTER TABLE [o.]t RENAME TO n`` or ``RENAME t TO n``
    (``owner``, the row's SEG_OWNER, when the statement names none); None for any other
    statement."""
    if sql_redo is None:
        return None
    statement = _statement(sql_redo)
    altered = _ALTER_TABLE_RENAME.match(statement)
    if altered is not None:
        schema, old, new = altered.groups()
        named_owner = _identifier(schema) if schema is not None else owner
    else:
        renamed = _RENAME.match(statement)
        if renamed is None:
            return None
        (old, new), named_owner = renamed.groups(), owner
    if named_owner is None:
        return None
    return named_owner, _identifier(old), _identifier(new)


def _statement(sql_redo: str) -> str:
    """The statement from its first keyword to its last word: without the blanks and
    comments around it, nor its semicolon."""
    start = _LEADING.match(sql_redo).end()  # type: ignore[union-attr]
    end = _TRAILING.search(sql_redo, start).start()  # type: ignore[union-attr]
    return sql_redo[start:end]


def _identifier(text: str) -> str:
    return text[1:-1] if text.startswith('"') else text.upper()
