"""Every statement the Oracle source sends, as a named constant with bind variables.

Nothing is spliced into SQL except identifiers from the Oracle dictionary, which pass
:func:`quote_identifier` (validated, then double-quoted), and the fixed per-type select
expressions of snapshot reads. The simulator's DB-API face (``extractor.sim.dbapi``)
recognises statements by the normalised text of these constants, so a statement changed here
is a statement changed for both.
"""

from __future__ import annotations

import re
from typing import Final

from extractor.source.errors import SourceError

# -- database ------------------------------------------------------------------------------

CURRENT_SCN: Final = "SELECT CURRENT_SCN FROM V$DATABASE"

DATABASE_INFO: Final = (
    "SELECT NAME, LOG_MODE, SUPPLEMENTAL_LOG_DATA_MIN, SUPPLEMENTAL_LOG_DATA_PK, "
    "SUPPLEMENTAL_LOG_DATA_ALL FROM V$DATABASE"
)

# Smallest START_SCN of the transactions open now that started at or before :at_scn.
OPEN_TRANSACTIONS_START_SCN: Final = (
    "SELECT MIN(START_SCN) FROM V$TRANSACTION WHERE START_SCN <= :at_scn"
)

# -- dictionary ----------------------------------------------------------------------------

# Patterns are LIKE patterns with '\' as the escape character (see like_pattern()).
LIST_TABLES: Final = (
    "SELECT OWNER, TABLE_NAME FROM ALL_TABLES "
    "WHERE OWNER LIKE :owner_pattern ESCAPE '\\' AND TABLE_NAME LIKE :table_pattern ESCAPE '\\' "
    "AND DROPPED = 'NO' ORDER BY OWNER, TABLE_NAME"
)

TABLE_COLUMNS: Final = (
    "SELECT COLUMN_NAME, COLUMN_ID, DATA_TYPE, DATA_LENGTH, DATA_PRECISION, DATA_SCALE, NULLABLE "
    "FROM ALL_TAB_COLUMNS WHERE OWNER = :owner AND TABLE_NAME = :table_name ORDER BY COLUMN_ID"
)

PRIMARY_KEY_COLUMNS: Final = (
    "SELECT CC.COLUMN_NAME FROM ALL_CONSTRAINTS C JOIN ALL_CONS_COLUMNS CC "
    "ON CC.OWNER = C.OWNER AND CC.CONSTRAINT_NAME = C.CONSTRAINT_NAME "
    "WHERE C.OWNER = :owner AND C.TABLE_NAME = :table_name AND C.CONSTRAINT_TYPE = 'P' "
    "ORDER BY CC.POSITION"
)

LOG_GROUP_TYPES: Final = (
    "SELECT LOG_GROUP_TYPE FROM ALL_LOG_GROUPS WHERE OWNER = :owner AND TABLE_NAME = :table_name"
)

TABLE_OBJECT_IDS: Final = (
    "SELECT OBJECT_ID, DATA_OBJECT_ID FROM ALL_OBJECTS "
    "WHERE OWNER = :owner AND OBJECT_NAME = :table_name AND OBJECT_TYPE = 'TABLE'"
)

# -- redo log catalog (reference §2) -------------------------------------------------------

ARCHIVED_LOGS: Final = (
    "SELECT NAME, THREAD#, SEQUENCE#, FIRST_CHANGE#, NEXT_CHANGE# FROM V$ARCHIVED_LOG "
    "WHERE NAME IS NOT NULL AND ARCHIVED = 'YES' AND STATUS = 'A' "
    "AND NEXT_CHANGE# > :start_scn AND FIRST_CHANGE# <= :end_scn "
    "AND DEST_ID IN (SELECT DEST_ID FROM V$ARCHIVE_DEST_STATUS "
    "WHERE STATUS = 'VALID' AND TYPE = 'LOCAL' AND ROWNUM = 1) "
    "AND RESETLOGS_CHANGE# = (SELECT RESETLOGS_CHANGE# FROM V$DATABASE) "
    "ORDER BY THREAD#, SEQUENCE#"
)

# The CURRENT log's NEXT_CHANGE# is a sentinel (281474976710655 on 12c+): open-ended.
ONLINE_LOGS: Final = (
    "SELECT MIN(F.MEMBER), L.THREAD#, L.SEQUENCE#, L.FIRST_CHANGE#, L.NEXT_CHANGE#, L.STATUS "
    "FROM V$LOG L JOIN V$LOGFILE F ON F.GROUP# = L.GROUP# "
    "WHERE L.STATUS IN ('CURRENT', 'ACTIVE', 'INACTIVE') "
    "AND L.NEXT_CHANGE# > :start_scn AND L.FIRST_CHANGE# <= :end_scn "
    "GROUP BY L.THREAD#, L.SEQUENCE#, L.FIRST_CHANGE#, L.NEXT_CHANGE#, L.STATUS "
    "ORDER BY L.THREAD#, L.SEQUENCE#"
)

# -- LogMiner (DBMS_LOGMNR procedures are called with cursor.callproc, not as SQL) ---------

ADD_LOGFILE: Final = "DBMS_LOGMNR.ADD_LOGFILE"
START_LOGMNR: Final = "DBMS_LOGMNR.START_LOGMNR"
END_LOGMNR: Final = "DBMS_LOGMNR.END_LOGMNR"

LOGMNR_NEW: Final = 1
LOGMNR_ADDFILE: Final = 3
DICT_FROM_ONLINE_CATALOG: Final = 16
NO_ROWID_IN_STMT: Final = 2048

# :table_list is ",OWNER.TABLE,OWNER.TABLE," and :owner_list ",OWNER,OWNER,": one statement
# text for any number of tables, every name a bind value. Codes 6/7/36 (START, COMMIT,
# ROLLBACK) and 34 (MISSING_SCN) of every transaction; DDL (5) of the owners, to see new and
# altered tables; every row of the listed tables (DML, DDL, LOB and UNSUPPORTED rows).
LOGMNR_CONTENTS: Final = (
    "SELECT SCN, START_SCN, COMMIT_SCN, TO_CHAR(TIMESTAMP, 'YYYY-MM-DD\"T\"HH24:MI:SS'), "
    "TO_CHAR(COMMIT_TIMESTAMP, 'YYYY-MM-DD\"T\"HH24:MI:SS'), RAWTOHEX(XID), OPERATION, "
    'OPERATION_CODE, SEG_OWNER, TABLE_NAME, ROW_ID, RS_ID, SSN, CSF, "ROLLBACK", STATUS, INFO, '
    "USERNAME, SQL_REDO FROM V$LOGMNR_CONTENTS "
    "WHERE SCN >= :start_scn AND SCN <= :end_scn "
    "AND (OPERATION_CODE IN (6, 7, 34, 36) "
    "OR (OPERATION_CODE = 5 AND INSTR(:owner_list, ',' || SEG_OWNER || ',') > 0) "
    "OR INSTR(:table_list, ',' || SEG_OWNER || '.' || TABLE_NAME || ',') > 0)"
)

# -- snapshot reads (reference §4) ---------------------------------------------------------

SNAPSHOT: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn ORDER BY ROWID"
)
SNAPSHOT_AFTER_ROWID: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn "
    "WHERE ROWID > CHARTOROWID(:after_rowid) ORDER BY ROWID"
)

# Per-type select expressions; {column} is a quoted identifier, {digits} 7..9.
EXPR_COLUMN: Final = "{column}"
EXPR_NUMBER_TEXT: Final = "TO_CHAR({column}, 'TM9')"
EXPR_UTC: Final = "SYS_EXTRACT_UTC({column})"
EXPR_TIMESTAMP_TEXT: Final = "TO_CHAR({column}, 'YYYY-MM-DD HH24:MI:SS.FF{digits}')"
EXPR_UTC_TIMESTAMP_TEXT: Final = (
    "TO_CHAR(SYS_EXTRACT_UTC({column}), 'YYYY-MM-DD HH24:MI:SS.FF{digits}') || ' +00:00'"
)

# -- verify (extractor.verify; digests defined in extractor.verify.canonical) -------------

VERIFY_COUNT: Final = "SELECT COUNT(*) FROM {table} AS OF SCN :scn"

# One row per key of the bucket range: key texts K1.., KEY_DIGEST, then digests D1.. (the
# row's group digests, or, to name changed columns, one digest per column).
VERIFY_DIGESTS: Final = (
    "SELECT * FROM (SELECT {key_list}, {key_digest} AS KEY_DIGEST, {digest_list} "
    "FROM {table} AS OF SCN :scn) "
    "WHERE TO_NUMBER(SUBSTR(KEY_DIGEST, 1, 3), 'XXX') BETWEEN :bucket_lo AND :bucket_hi"
)

# Canonical text of one value ({column} a quoted identifier; NULL stays NULL).
VERIFY_TEXT_NUMBER: Final = (
    "CASE WHEN {column} = 0 THEN '0' "
    "ELSE REGEXP_REPLACE(TO_CHAR({column}, 'TM9'), '^(-?)\\.', '\\10.') END"
)
VERIFY_TEXT_DOUBLE: Final = (
    "CASE WHEN {column} IS NULL THEN NULL "
    "WHEN TO_BINARY_DOUBLE({column}) = BINARY_DOUBLE_NAN THEN 'NaN' "
    "WHEN {column} = 0 THEN '0000000000000000' "
    "ELSE RAWTOHEX(UTL_RAW.CAST_FROM_BINARY_DOUBLE(TO_BINARY_DOUBLE({column}))) END"
)
VERIFY_TEXT_DATE: Final = "TO_CHAR({column}, 'YYYY-MM-DD HH24:MI:SS') || '.000000'"
VERIFY_TEXT_TIMESTAMP: Final = "TO_CHAR({column}, 'YYYY-MM-DD HH24:MI:SS.FF6')"
VERIFY_TEXT_UTC_TIMESTAMP: Final = "TO_CHAR(SYS_EXTRACT_UTC({column}), 'YYYY-MM-DD HH24:MI:SS.FF6')"
VERIFY_TEXT_INTERVAL_YM: Final = (
    "CASE WHEN {column} < INTERVAL '0' MONTH THEN '-' END || ABS(EXTRACT(YEAR FROM {column})) "
    "|| '-' || LPAD(ABS(EXTRACT(MONTH FROM {column})), 2, '0')"
)
VERIFY_TEXT_INTERVAL_DS: Final = (
    "CASE WHEN {column} < INTERVAL '0' SECOND THEN '-' END || ABS(EXTRACT(DAY FROM {column})) "
    "|| ' ' || LPAD(ABS(EXTRACT(HOUR FROM {column})), 2, '0') "
    "|| ':' || LPAD(ABS(EXTRACT(MINUTE FROM {column})), 2, '0') "
    "|| ':' || RTRIM(TO_CHAR(ABS(EXTRACT(SECOND FROM {column})), 'FM00.999999999'), '.')"
)
VERIFY_TEXT_NATIONAL: Final = "TO_CHAR({column})"
VERIFY_TEXT_ROWID: Final = "ROWIDTOCHAR({column})"
VERIFY_TEXT_BINARY_KEY: Final = "RAWTOHEX({column})"
# Column digests: of the canonical text, of RAW bytes, of LOB content (DBMS_CRYPTO.HASH
# with HASH_SH256 = 4; a CLOB is hashed in AL32UTF8).
VERIFY_DIGEST_TEXT: Final = (
    "CASE WHEN {column} IS NULL THEN '-' ELSE RAWTOHEX(STANDARD_HASH({text}, 'SHA256')) END"
)
VERIFY_DIGEST_LOB: Final = (
    "CASE WHEN {column} IS NULL THEN '-' ELSE RAWTOHEX(DBMS_CRYPTO.HASH({column}, 4)) END"
)
VERIFY_DIGEST_COMBINED: Final = "RAWTOHEX(STANDARD_HASH({digests}, 'SHA256'))"

# Every complete statement, by name (the parse test and the simulator iterate over it).
STATEMENTS: Final[dict[str, str]] = {
    "CURRENT_SCN": CURRENT_SCN,
    "DATABASE_INFO": DATABASE_INFO,
    "OPEN_TRANSACTIONS_START_SCN": OPEN_TRANSACTIONS_START_SCN,
    "LIST_TABLES": LIST_TABLES,
    "TABLE_COLUMNS": TABLE_COLUMNS,
    "PRIMARY_KEY_COLUMNS": PRIMARY_KEY_COLUMNS,
    "LOG_GROUP_TYPES": LOG_GROUP_TYPES,
    "TABLE_OBJECT_IDS": TABLE_OBJECT_IDS,
    "ARCHIVED_LOGS": ARCHIVED_LOGS,
    "ONLINE_LOGS": ONLINE_LOGS,
    "LOGMNR_CONTENTS": LOGMNR_CONTENTS,
}

_NAME_MAX = 128


class InvalidIdentifierError(SourceError):
    """A name that cannot be used as a quoted Oracle identifier."""


def quote_identifier(name: str) -> str:
    """``"NAME"`` for a dictionary name; refuses names a quoted identifier cannot hold."""
    if not name or len(name) > _NAME_MAX or '"' in name or "\x00" in name:
        raise InvalidIdentifierError(
            f"{name!r} is not a valid Oracle identifier",
            fix="rename the object or leave it out of the configuration",
        )
    return f'"{name}"'


def qualified_name(owner: str, table: str) -> str:
    """``"OWNER"."TABLE"``, both parts validated."""
    return f"{quote_identifier(owner)}.{quote_identifier(table)}"


def like_pattern(wildcard: str) -> str:
    """A LIKE pattern (escape ``\\``) from a ``*``/``?`` wildcard: ``APP_*`` -> ``APP\\_%``."""
    escaped = re.sub(r"([\\%_])", r"\\\1", wildcard)
    return escaped.replace("*", "%").replace("?", "_")


def name_list(names: list[str]) -> str:
    """``,A,B,`` for the INSTR list binds of :data:`LOGMNR_CONTENTS`."""
    for name in names:
        if "," in name:
            raise InvalidIdentifierError(f"{name!r} holds a comma; it cannot be mined by name")
    return "," + ",".join(names) + ","


def normalise(sql: str) -> str:
    """Whitespace collapsed, no trailing semicolon: the form statements are compared in."""
    return " ".join(sql.split()).rstrip(";").rstrip()
