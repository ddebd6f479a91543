"""Every statement the Oracle source sends, as a named constant with bind variables.

Nothing is spliced into SQL except identifiers from the Oracle dictionary, which pass
:func:`quote_identifier` (validated, then double-quoted), and the fixed per-type select
expressions of snapshot reads. The simulator's DB-API face (``extractor.sim.dbapi``)
recognises statements by the normalised text of these constants, so a statement changed here
is a statement changed for both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from extractor.dictionary import ROW_ARCHIVAL_COLUMN
from extractor.errors import OracleIdentifierError
from extractor.logminer_row import OBJECT_ROW_ID_SUFFIX, TRANSACTION_CONTROL_CODES, OperationCode

# -- database ------------------------------------------------------------------------------

CURRENT_SCN: Final = "SELECT CURRENT_SCN FROM V$DATABASE"
# The database and its incarnation: a new RESETLOGS_CHANGE# and RESETLOGS_TIME after OPEN
# RESETLOGS (incomplete recovery, FLASHBACK DATABASE, a failover), another DBID for another
# database. The time as text: second precision, the form the checkpoint keeps.
INCARNATION: Final = (
    "SELECT DBID, RESETLOGS_CHANGE#, TO_CHAR(RESETLOGS_TIME, 'YYYY-MM-DD HH24:MI:SS') "
    "FROM V$DATABASE"
)

# The replicated PDB and its incarnation, asked in the PDB (the catalog connection): its own
# DBID (CON_DBID), and the CURRENT row of V$PDB_INCARNATION, which gets a new
# PDB_INCARNATION# after FLASHBACK PLUGGABLE DATABASE or a PDB point-in-time recovery and
# ALTER PLUGGABLE DATABASE OPEN RESETLOGS (V$DATABASE stays as it was). Newest first: one
# CURRENT row is expected, the first is taken if there were more.
PDB_INCARNATION: Final = (
    "SELECT SYS_CONTEXT('USERENV', 'CON_DBID'), PDB_INCARNATION#, INCARNATION_SCN, "
    "BEGIN_RESETLOGS_SCN FROM V$PDB_INCARNATION "
    "WHERE STATUS = 'CURRENT' AND CON_ID = SYS_CONTEXT('USERENV', 'CON_ID') "
    "ORDER BY DB_INCARNATION# DESC, PDB_INCARNATION# DESC"
)

# The highest SCN every open redo thread has written to its log (LGWR): redo above it may
# still be in a log buffer, and LogMiner would read it as absent. A RAC thread of a stopped
# instance is CLOSED: it writes nothing more, so it does not hold the others back.
MINABLE_SCN: Final = "SELECT MIN(LAST_REDO_CHANGE#) FROM V$THREAD WHERE STATUS = 'OPEN'"

# The server's OS time zone offset ('+02:00'): SYSDATE's, and that of the DATE columns
# TIMESTAMP and COMMIT_TIMESTAMP of V$LOGMNR_CONTENTS (not DBTIMEZONE, not the session's).
SERVER_UTC_OFFSET: Final = "SELECT TO_CHAR(SYSTIMESTAMP, 'TZH:TZM') FROM DUAL"

DATABASE_INFO: Final = (
    "SELECT NAME, LOG_MODE, SUPPLEMENTAL_LOG_DATA_MIN, SUPPLEMENTAL_LOG_DATA_PK, "
    "SUPPLEMENTAL_LOG_DATA_ALL FROM V$DATABASE"
)

# FORCE LOGGING: every change is logged, whatever the objects' NOLOGGING attributes say.
FORCE_LOGGING: Final = "SELECT FORCE_LOGGING FROM V$DATABASE"

# A table's segments marked NOLOGGING: the table, its (sub)partitions, its LOB segments and
# LOB partitions (a partitioned table's ALL_LOBS.LOGGING is NONE). A direct-path load into
# the table or a partition (INSERT /*+ APPEND */, SQL*Loader direct path), and any write of a
# NOLOGGING LOB's data (or of a SecureFiles LOB's under FILESYSTEM_LIKE_LOGGING), has no redo
# unless the database or the tablespace is in FORCE LOGGING: LogMiner never sees it
# (OCI-26767).
NOLOGGING_SEGMENTS: Final = (
    "SELECT 'TABLE' FROM ALL_TABLES "
    "WHERE OWNER = :owner AND TABLE_NAME = :table_name AND LOGGING = 'NO' "
    "UNION ALL SELECT 'PARTITION ' || PARTITION_NAME FROM ALL_TAB_PARTITIONS "
    "WHERE TABLE_OWNER = :owner AND TABLE_NAME = :table_name AND LOGGING = 'NO' "
    "UNION ALL SELECT 'SUBPARTITION ' || SUBPARTITION_NAME FROM ALL_TAB_SUBPARTITIONS "
    "WHERE TABLE_OWNER = :owner AND TABLE_NAME = :table_name AND LOGGING = 'NO' "
    "UNION ALL SELECT 'LOB ' || COLUMN_NAME FROM ALL_LOBS "
    "WHERE OWNER = :owner AND TABLE_NAME = :table_name AND LOGGING NOT IN ('YES', 'NONE') "
    "UNION ALL SELECT 'LOB ' || COLUMN_NAME || ' PARTITION ' || PARTITION_NAME "
    "FROM ALL_LOB_PARTITIONS "
    "WHERE TABLE_OWNER = :owner AND TABLE_NAME = :table_name AND LOGGING NOT IN ('YES', 'NONE')"
)

# Smallest START_SCN of the transactions open now that started at or before :at_scn, on
# every instance: V$TRANSACTION lists only the local instance's transactions on RAC.
OPEN_TRANSACTIONS_START_SCN: Final = (
    "SELECT MIN(START_SCN) FROM GV$TRANSACTION WHERE START_SCN <= :at_scn"
)

# Every redo thread in the control file (one per RAC instance): each OPEN thread must have
# logs covering a mining window; a CLOSED one up to its CHECKPOINT_CHANGE#, a DISABLED one
# below its DISABLE_CHANGE#, none before its ENABLE_CHANGE# (redo_logs.RedoThread).
REDO_THREADS: Final = (
    "SELECT THREAD#, STATUS, ENABLED, ENABLE_CHANGE#, CHECKPOINT_CHANGE#, DISABLE_CHANGE# "
    "FROM V$THREAD ORDER BY THREAD#"
)

# -- pre-flight checks (extractor.source.oracle.preflight) -----------------------------------

# CDB is 'YES' on a multitenant database; CON_NAME is CDB$ROOT or the PDB's name (12.1+).
CONTAINER_INFO: Final = "SELECT CDB, SYS_CONTEXT('USERENV', 'CON_NAME') FROM V$DATABASE"

# 1 when a root session's V$ views show the PDB's rows (the user's CONTAINER_DATA covers it).
PDB_VISIBLE: Final = "SELECT COUNT(*) FROM V$PDBS WHERE NAME = :pdb"

# Moves a common user's session into a PDB (SET CONTAINER privilege); {container} is a plain
# name checked by config.validate_oracle_name (a container name cannot be a bind).
SET_CONTAINER: Final = "ALTER SESSION SET CONTAINER = {container}"

SESSION_PRIVILEGES: Final = "SELECT PRIVILEGE FROM SESSION_PRIVS"

# SYS.DBMS_LOGMNR is listed in ALL_OBJECTS only when this user may execute it.
DBMS_LOGMNR_VISIBLE: Final = (
    "SELECT COUNT(*) FROM ALL_OBJECTS "
    "WHERE OWNER = 'SYS' AND OBJECT_NAME = 'DBMS_LOGMNR' AND OBJECT_TYPE = 'PACKAGE'"
)

# Reads nothing: fails with ORA-00942 / ORA-01031 when the view is not readable. {view} is one
# of preflight.PROBED_VIEWS or V$LOGMNR_CONTENTS (fixed names, never user input).
VIEW_PROBE: Final = "SELECT COUNT(*) FROM {view} WHERE 1 = 0"

# Reads nothing: fails when SELECT or FLASHBACK on the table is missing. {table} is quoted.
FLASHBACK_PROBE: Final = "SELECT COUNT(*) FROM {table} AS OF SCN :scn WHERE 1 = 0"

# -- dictionary ----------------------------------------------------------------------------

# Names of Oracle-internal tables a wildcard never takes (LIKE patterns, escape '\'):
# materialized view logs and updatable-MV logs, the recycle bin, Oracle Text index tables,
# IOT overflow segments, queue tables' internal tables, online index rebuild journals.
NON_REPLICABLE_NAMES: Final = (
    "MLOG$\\_%",
    "RUPD$\\_%",
    "BIN$%",
    "DR$%",
    "SYS\\_IOT\\_OVER\\_%",
    "AQ$\\_%",
    "SYS\\_JOURNAL\\_%",
)

# Patterns are LIKE patterns with '\' as the escape character (see like_pattern()). What
# cannot be replicated is left out: global temporary tables (TEMPORARY), IOT overflow and
# mapping tables (IOT_TYPE), nested tables, secondary objects of domain indexes, dropped
# tables and NON_REPLICABLE_NAMES.
LIST_TABLES: Final = (
    "SELECT OWNER, TABLE_NAME FROM ALL_TABLES "
    "WHERE OWNER LIKE :owner_pattern ESCAPE '\\' AND TABLE_NAME LIKE :table_pattern ESCAPE '\\' "
    "AND DROPPED = 'NO' AND TEMPORARY = 'N' AND NESTED = 'NO' AND SECONDARY = 'N' "
    "AND (IOT_TYPE IS NULL OR IOT_TYPE = 'IOT') "
    + "".join(f"AND TABLE_NAME NOT LIKE '{name}' ESCAPE '\\' " for name in NON_REPLICABLE_NAMES)
    + "ORDER BY OWNER, TABLE_NAME"
)

# ALL_TAB_COLS without virtual columns (computed, never in redo: an INSERT would land NULL)
# and system-generated ones (unused columns, those behind function-based indexes): the columns
# redo carries, read alike by snapshots and images. INVISIBLE columns are user-generated
# hidden ones, stored and in redo like any other: read, after the visible ones (their
# COLUMN_ID is NULL) in the order they were created. So is ORA_ARCHIVE_STATE, the
# system-generated column of a ROW ARCHIVAL table (stored, in redo; docs/types.md).
TABLE_COLUMNS: Final = (
    "SELECT COLUMN_NAME, COLUMN_ID, DATA_TYPE, DATA_LENGTH, DATA_PRECISION, DATA_SCALE, NULLABLE "
    "FROM ALL_TAB_COLS WHERE OWNER = :owner AND TABLE_NAME = :table_name "
    f"AND VIRTUAL_COLUMN = 'NO' AND (USER_GENERATED = 'YES' OR COLUMN_NAME = "
    f"'{ROW_ARCHIVAL_COLUMN}') "
    "ORDER BY COLUMN_ID NULLS LAST, INTERNAL_COLUMN_ID"
)

# The catalog session sees the archived rows of ROW ARCHIVAL tables too (Oracle's default,
# ACTIVE, hides them from queries; AS OF ones too, we infer), as the redo does. 12c and later
# (OracleSource sends it to those only).
SEE_ARCHIVED_ROWS: Final = "ALTER SESSION SET ROW ARCHIVAL VISIBILITY = ALL"

PRIMARY_KEY_COLUMNS: Final = (
    "SELECT CC.COLUMN_NAME FROM ALL_CONSTRAINTS C JOIN ALL_CONS_COLUMNS CC "
    "ON CC.OWNER = C.OWNER AND CC.CONSTRAINT_NAME = C.CONSTRAINT_NAME "
    "WHERE C.OWNER = :owner AND C.TABLE_NAME = :table_name AND C.CONSTRAINT_TYPE = 'P' "
    "ORDER BY CC.POSITION"
)

LOG_GROUP_TYPES: Final = (
    "SELECT LOG_GROUP_TYPE FROM ALL_LOG_GROUPS WHERE OWNER = :owner AND TABLE_NAME = :table_name"
)

# The OBJECT_IDs of a table and of its partitions and subpartitions (ALL_OBJECTS names them
# by the table, with their own SUBOBJECT_NAME): DATA_OBJ# of a row of a partitioned table is
# the OBJECT_ID of the (sub)partition that holds it, never the table's.
TABLE_OBJECT_IDS: Final = (
    "SELECT OBJECT_ID FROM ALL_OBJECTS "
    "WHERE OWNER = :owner AND OBJECT_NAME = :table_name "
    "AND OBJECT_TYPE IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION') "
    "ORDER BY OBJECT_ID"
)

# Whether an object exists: a dropped table keeps its OBJECT_ID in the recycle bin (under its
# BIN$ name) and loses it once purged.
OBJECT_EXISTS: Final = "SELECT COUNT(*) FROM ALL_OBJECTS WHERE OBJECT_ID = :object_id"

# -- redo log catalog (reference §2) -------------------------------------------------------

# One copy per (THREAD#, SEQUENCE#): the available one (STATUS 'A') on the lowest DEST_ID of
# the local, VALID destinations, so the same file is read every time and a copy deleted on
# one destination is taken from another (not one arbitrary destination: ROWNUM = 1).
ARCHIVED_LOGS: Final = (
    "SELECT NAME, THREAD#, SEQUENCE#, FIRST_CHANGE#, NEXT_CHANGE# FROM ("
    "SELECT A.NAME, A.THREAD#, A.SEQUENCE#, A.FIRST_CHANGE#, A.NEXT_CHANGE#, "
    "ROW_NUMBER() OVER (PARTITION BY A.THREAD#, A.SEQUENCE# ORDER BY A.DEST_ID) AS COPY_RANK "
    "FROM V$ARCHIVED_LOG A JOIN V$ARCHIVE_DEST_STATUS D ON D.DEST_ID = A.DEST_ID "
    "WHERE A.NAME IS NOT NULL AND A.ARCHIVED = 'YES' AND A.STATUS = 'A' "
    "AND D.STATUS = 'VALID' AND D.TYPE = 'LOCAL' "
    "AND A.NEXT_CHANGE# > :start_scn AND A.FIRST_CHANGE# <= :end_scn "
    "AND A.RESETLOGS_CHANGE# = (SELECT RESETLOGS_CHANGE# FROM V$DATABASE) "
    "AND A.RESETLOGS_TIME = (SELECT RESETLOGS_TIME FROM V$DATABASE)) "
    "WHERE COPY_RANK = 1 "
    "ORDER BY THREAD#, SEQUENCE#"
)

# The CURRENT log's NEXT_CHANGE# is a sentinel (281474976710655 on 12c+): open-ended. One
# member per group: the lowest path among those in use (V$LOGFILE.STATUS NULL; INVALID:
# inaccessible, STALE: incomplete, DELETED: no longer used), else the lowest of all (as
# before: a group is never left out, its failure stays an error naming the file).
ONLINE_LOGS: Final = (
    "SELECT MIN(F.MEMBER) KEEP (DENSE_RANK FIRST ORDER BY NVL2(F.STATUS, 1, 0)), "
    "L.THREAD#, L.SEQUENCE#, L.FIRST_CHANGE#, L.NEXT_CHANGE#, L.STATUS "
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

# Built by logminer_contents_query(): {owner_filter}, {table_filter} and {object_filter} are
# IN-lists of bind variables (split at IN_LIST_MAX, Oracle's limit per list: ORA-01795), one
# bind per name, so any number of tables fits (a single VARCHAR2 bind fails above 4,000
# bytes). Codes 6/7/36 (START, COMMIT, ROLLBACK), 27 (replication marker: ends a marker
# transaction's hold on the resume position) and 34 (MISSING_SCN) of every transaction; DDL
# (5) of the owners, to see new and altered tables; every row of the listed tables (DML, DDL,
# LOB and UNSUPPORTED rows); and every row whose DATA_OBJ# is one of the tables' OBJECT_IDs,
# so rows LogMiner cannot name (UNKNOWN / "OBJ# n", BIN$ names, a renamed table) reach
# quarantine. DDL rows Oracle marks INFO = 'INTERNAL DDL' (recursive DDL it runs itself)
# are left out: they change no definition, and each would refresh the dictionary.
# The codes as SQL literals, from the one enum (extractor.logminer_row).
_DDL_CODE: Final = str(int(OperationCode.DDL))
_CONTROL_CODES: Final = ", ".join(str(int(code)) for code in sorted(TRANSACTION_CONTROL_CODES))
LOGMNR_CONTENTS: Final = (
    "SELECT SCN, START_SCN, COMMIT_SCN, TO_CHAR(TIMESTAMP, 'YYYY-MM-DD\"T\"HH24:MI:SS'), "
    "TO_CHAR(COMMIT_TIMESTAMP, 'YYYY-MM-DD\"T\"HH24:MI:SS'), RAWTOHEX(XID), OPERATION, "
    'OPERATION_CODE, SEG_OWNER, TABLE_NAME, ROW_ID, RS_ID, SSN, CSF, "ROLLBACK", STATUS, INFO, '
    "USERNAME, SQL_REDO, DATA_OBJ# FROM V$LOGMNR_CONTENTS "
    "WHERE SCN >= :start_scn AND SCN <= :end_scn "
    f"AND (OPERATION_CODE <> {_DDL_CODE} OR NVL(INFO, ' ') NOT LIKE 'INTERNAL DDL%') "
    f"AND (OPERATION_CODE IN ({_CONTROL_CODES}) "
    f"OR (OPERATION_CODE = {_DDL_CODE} AND {{owner_filter}}) "
    "OR {table_filter} "
    "OR {object_filter}"
    "{internal_filter})"
    "{internal_condition}"
    "{container_filter}"
)
# With a replicated table that has LOB columns: the INTERNAL rows that end a statement writing
# LOB values with the row's ROWID (its INSERT or UPDATE shows none: docs/logminer.md §3). They
# carry no SEG_OWNER or TABLE_NAME, so no table filter selects them: every INTERNAL row is
# selected that is not an undo, has the ROWID of a row (not of the object as a whole) and is
# not its statement's first row (Debezium's LogMiner adapter uses the same conditions). The
# transaction buffer drops every one it does not need.
LOGMNR_INTERNAL_ROWS: Final = f" OR OPERATION_CODE = {int(OperationCode.INTERNAL)}"
LOGMNR_INTERNAL_ROWS_CONDITION: Final = (
    f' AND (OPERATION_CODE <> {int(OperationCode.INTERNAL)} OR ("ROLLBACK" = 0 '
    f"AND ROW_ID NOT LIKE '%{OBJECT_ROW_ID_SUFFIX}' AND SEQUENCE# > 1))"
)
# A root session's rows of one PDB, its transaction-control rows included: other containers'
# rows are left out (a clone has the same table names and object numbers; its transactions'
# XIDs may equal the PDB's). MISSING_SCN rows are kept whatever their container: a hole in the
# CDB's redo is one in the PDB's, and SRC_CON_NAME "may not always have values" (Utilities,
# "The V$LOGMNR_CONTENTS View in a CDB"). Appended to LOGMNR_CONTENTS' WHERE clause.
LOGMNR_CONTAINER_FILTER: Final = (
    f" AND (SRC_CON_NAME = :pdb OR OPERATION_CODE = {int(OperationCode.MISSING_SCN)})"
)
IN_LIST_MAX: Final = 1000

# -- snapshot reads (reference §4) ---------------------------------------------------------

SNAPSHOT: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn ORDER BY ROWID"
)
SNAPSHOT_AFTER_ROWID: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn "
    "WHERE ROWID > CHARTOROWID(:after_rowid) ORDER BY ROWID"
)

# One chunk: the rows of a ROWID range (whole extents), sorted by ROWID; Oracle reads the
# range's blocks only (TABLE ACCESS BY ROWID RANGE) and sorts one chunk, not the table.
SNAPSHOT_RANGE: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn "
    "WHERE ROWID BETWEEN CHARTOROWID(:low_rowid) AND CHARTOROWID(:high_rowid) ORDER BY ROWID"
)
SNAPSHOT_RANGE_AFTER_ROWID: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn "
    "WHERE ROWID BETWEEN CHARTOROWID(:low_rowid) AND CHARTOROWID(:high_rowid) "
    "AND ROWID > CHARTOROWID(:after_rowid) ORDER BY ROWID"
)

# One row AS OF an SCN by its ROWID: what tells apart the readings of a SQL_REDO statement
# with undoubled apostrophes (docs/logminer.md).
ROW_AS_OF: Final = (
    "SELECT {select_list}, ROWIDTOCHAR(ROWID) FROM {table} AS OF SCN :scn "
    "WHERE ROWID = CHARTOROWID(:row_id)"
)

# The table's extents (every partition and subpartition) as ROWID bounds computed by Oracle:
# first ROWID of the first block, last possible ROWID of the last block, and the block count.
TABLE_EXTENTS: Final = (
    "SELECT ROWIDTOCHAR(DBMS_ROWID.ROWID_CREATE(1, O.DATA_OBJECT_ID, E.RELATIVE_FNO, "
    "E.BLOCK_ID, 0)), "
    "ROWIDTOCHAR(DBMS_ROWID.ROWID_CREATE(1, O.DATA_OBJECT_ID, E.RELATIVE_FNO, "
    "E.BLOCK_ID + E.BLOCKS - 1, 32767)), E.BLOCKS "
    "FROM DBA_EXTENTS E JOIN DBA_OBJECTS O "
    "ON O.OWNER = E.OWNER AND O.OBJECT_NAME = E.SEGMENT_NAME "
    "AND NVL(O.SUBOBJECT_NAME, ' ') = NVL(E.PARTITION_NAME, ' ') "
    "AND O.OBJECT_TYPE IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION') "
    "WHERE E.OWNER = :owner AND E.SEGMENT_NAME = :table_name "
    "AND E.SEGMENT_TYPE IN ('TABLE', 'TABLE PARTITION', 'TABLE SUBPARTITION')"
)

# Per-type select expressions; {column} is a quoted identifier, {digits} 7..9.
EXPR_COLUMN: Final = "{column}"
EXPR_NUMBER_TEXT: Final = "TO_CHAR({column}, 'TM9')"
EXPR_UTC: Final = "SYS_EXTRACT_UTC({column})"
# SYYYY: a year before 1 AD keeps its minus sign (YYYY would print it as the same year AD);
# an AD year has a space in its place, which the snapshot's converter takes off.
EXPR_TIMESTAMP_TEXT: Final = "TO_CHAR({column}, 'SYYYY-MM-DD HH24:MI:SS.FF{digits}')"
# NVL2: Oracle's || gives ' +00:00' for a NULL left side (only two NULLs concatenate to NULL).
EXPR_UTC_TIMESTAMP_TEXT: Final = (
    "NVL2({column}, "
    "TO_CHAR(SYS_EXTRACT_UTC({column}), 'SYYYY-MM-DD HH24:MI:SS.FF{digits}') || ' +00:00', NULL)"
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
    "INCARNATION": INCARNATION,
    "PDB_INCARNATION": PDB_INCARNATION,
    "MINABLE_SCN": MINABLE_SCN,
    "SERVER_UTC_OFFSET": SERVER_UTC_OFFSET,
    "DATABASE_INFO": DATABASE_INFO,
    "FORCE_LOGGING": FORCE_LOGGING,
    "NOLOGGING_SEGMENTS": NOLOGGING_SEGMENTS,
    "OPEN_TRANSACTIONS_START_SCN": OPEN_TRANSACTIONS_START_SCN,
    "REDO_THREADS": REDO_THREADS,
    "LIST_TABLES": LIST_TABLES,
    "TABLE_COLUMNS": TABLE_COLUMNS,
    "PRIMARY_KEY_COLUMNS": PRIMARY_KEY_COLUMNS,
    "LOG_GROUP_TYPES": LOG_GROUP_TYPES,
    "TABLE_OBJECT_IDS": TABLE_OBJECT_IDS,
    "OBJECT_EXISTS": OBJECT_EXISTS,
    "ARCHIVED_LOGS": ARCHIVED_LOGS,
    "ONLINE_LOGS": ONLINE_LOGS,
    "LOGMNR_CONTENTS": LOGMNR_CONTENTS.format(
        owner_filter="SEG_OWNER IN (:owner_1)",
        table_filter="(SEG_OWNER, TABLE_NAME) IN ((:table_owner_1, :table_name_1))",
        object_filter="DATA_OBJ# IN (:obj_1)",
        internal_filter="",
        internal_condition="",
        container_filter="",
    ),
    "LOGMNR_CONTENTS_WITH_INTERNAL_ROWS": LOGMNR_CONTENTS.format(
        owner_filter="SEG_OWNER IN (:owner_1)",
        table_filter="(SEG_OWNER, TABLE_NAME) IN ((:table_owner_1, :table_name_1))",
        object_filter="DATA_OBJ# IN (:obj_1)",
        internal_filter=LOGMNR_INTERNAL_ROWS,
        internal_condition=LOGMNR_INTERNAL_ROWS_CONDITION,
        container_filter="",
    ),
    "LOGMNR_CONTENTS_OF_PDB": LOGMNR_CONTENTS.format(
        owner_filter="SEG_OWNER IN (:owner_1)",
        table_filter="(SEG_OWNER, TABLE_NAME) IN ((:table_owner_1, :table_name_1))",
        object_filter="DATA_OBJ# IN (:obj_1)",
        internal_filter="",
        internal_condition="",
        container_filter=LOGMNR_CONTAINER_FILTER,
    ),
    "SET_CONTAINER": SET_CONTAINER.format(container="PDB1"),
    "SEE_ARCHIVED_ROWS": SEE_ARCHIVED_ROWS,
    "PDB_VISIBLE": PDB_VISIBLE,
}

_NAME_MAX = 128


def quote_identifier(name: str) -> str:
    """``"NAME"`` for a dictionary name; refuses names a quoted identifier cannot hold."""
    if not name or len(name) > _NAME_MAX or '"' in name or "\x00" in name:
        raise OracleIdentifierError(
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


def logminer_contents_query(
    owners: Sequence[str],
    tables: Sequence[tuple[str, str]],
    object_ids: Sequence[int],
    pdb: str | None = None,
    *,
    internal_rows: bool = False,
) -> tuple[str, dict[str, object]]:
    """:data:`LOGMNR_CONTENTS` for ``owners`` (DDL), ``tables`` ((owner, name): every row) and
    ``object_ids`` (DATA_OBJ#), with its binds (``:start_scn`` and ``:end_scn`` excepted):
    one bind per value, IN-lists of at most :data:`IN_LIST_MAX` joined by OR. ``pdb``: a
    root session's rows of that PDB only (:data:`LOGMNR_CONTAINER_FILTER`);
    ``internal_rows``: with :data:`LOGMNR_INTERNAL_ROWS` and its condition (some table has
    LOB columns)."""
    binds: dict[str, object] = {} if pdb is None else {"pdb": pdb}
    owner_terms = []
    for index, owner in enumerate(owners, start=1):
        binds[f"owner_{index}"] = owner
        owner_terms.append(f":owner_{index}")
    table_terms = []
    for index, (owner, name) in enumerate(tables, start=1):
        binds[f"table_owner_{index}"] = owner
        binds[f"table_name_{index}"] = name
        table_terms.append(f"(:table_owner_{index}, :table_name_{index})")
    object_terms = []
    for index, object_id in enumerate(object_ids, start=1):
        binds[f"obj_{index}"] = int(object_id)
        object_terms.append(f":obj_{index}")
    statement = LOGMNR_CONTENTS.format(
        owner_filter=_in_lists("SEG_OWNER", owner_terms),
        table_filter=_in_lists("(SEG_OWNER, TABLE_NAME)", table_terms),
        object_filter=_in_lists("DATA_OBJ#", object_terms),
        internal_filter=LOGMNR_INTERNAL_ROWS if internal_rows else "",
        internal_condition=LOGMNR_INTERNAL_ROWS_CONDITION if internal_rows else "",
        container_filter="" if pdb is None else LOGMNR_CONTAINER_FILTER,
    )
    return statement, binds


def _in_lists(expression: str, terms: Sequence[str]) -> str:
    """``(expr IN (t1, …, t1000) OR expr IN (t1001, …))``; ``1 = 0`` for no term."""
    if not terms:
        return "1 = 0"
    lists = [
        f"{expression} IN ({', '.join(terms[i : i + IN_LIST_MAX])})"
        for i in range(0, len(terms), IN_LIST_MAX)
    ]
    return lists[0] if len(lists) == 1 else "(" + " OR ".join(lists) + ")"


def normalise(sql: str) -> str:
    """Whitespace collapsed, no trailing semicolon: the form statements are compared in."""
    return " ".join(sql.split()).rstrip(";").rstrip()
