"""Pre-flight checks of an Oracle database before capture (``oracdc check``, start of ``sync``).

Each check reads one fact and says what to run when it is not as capture needs it:

- the server version (thin mode and the LOGMINING privilege need 12.1 or later);
- ARCHIVELOG mode and minimal supplemental logging (``V$DATABASE``);
- the container: where LogMiner runs on a multitenant database
  (:func:`extractor.source.oracle.container.mining_scope`: a PDB session needs 19c, a
  CDB$ROOT session needs ``source.pdb``);
- the grants, probed rather than looked up (a grant may come directly, through a role or as
  an ``ANY`` privilege): each view the extractor reads is selected with ``WHERE 1 = 0``
  (ORA-00942 / ORA-01031 mean missing), ``V$LOGMNR_CONTENTS`` answers ORA-01306 (no session
  yet) when it is readable, the LOGMINING system privilege is in ``SESSION_PRIVS``, and
  ``SYS.DBMS_LOGMNR`` is in ``ALL_OBJECTS`` only when it may be executed;
- per replicated table: a flashback read (``AS OF SCN``, ``WHERE 1 = 0``: nothing is read)
  and its supplemental logging level, with what a level below ALL means for its replica key;
- FORCE LOGGING, and without it each replicated table's segments marked NOLOGGING: a
  direct-path load into one writes its rows with no redo, which LogMiner cannot see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from extractor.dictionary import TableDef
from extractor.errors import SourceError
from extractor.keys import consolidation_key
from extractor.source.oracle import queries
from extractor.source.oracle.container import Container, MiningScope, mining_scope
from extractor.source.oracle.driver_errors import error_message, full_code

CheckStatus = Literal["ok", "warning", "failed"]

# The oldest release the extractor supports (python-oracledb thin mode; LOGMINING privilege).
MIN_VERSION = (12, 1)

# (view as selected, grant to give). SELECT_CATALOG_ROLE covers all of them at once.
PROBED_VIEWS: tuple[tuple[str, str], ...] = (
    ("V$DATABASE", "GRANT SELECT ON V_$DATABASE TO {user};"),
    ("V$THREAD", "GRANT SELECT ON V_$THREAD TO {user};"),
    ("V$LOG", "GRANT SELECT ON V_$LOG TO {user};"),
    ("V$LOGFILE", "GRANT SELECT ON V_$LOGFILE TO {user};"),
    ("V$ARCHIVED_LOG", "GRANT SELECT ON V_$ARCHIVED_LOG TO {user};"),
    ("V$ARCHIVE_DEST_STATUS", "GRANT SELECT ON V_$ARCHIVE_DEST_STATUS TO {user};"),
    ("GV$TRANSACTION", "GRANT SELECT ON GV_$TRANSACTION TO {user};"),
    ("V$PDB_INCARNATION", "GRANT SELECT ON V_$PDB_INCARNATION TO {user};"),
)
# Views only the log choice reads: a PDB session mining on its own (19c+) needs none of them.
LOG_CATALOG_VIEWS = frozenset({"V$LOG", "V$LOGFILE", "V$ARCHIVED_LOG", "V$ARCHIVE_DEST_STATUS"})
# Views read in the tables' PDB (the catalog connection), and only when they are in one.
PDB_VIEWS = frozenset({"V$PDB_INCARNATION"})
_IN_THE_PDB = frozenset({"GV$TRANSACTION"}) | PDB_VIEWS
_NO_ACCESS = frozenset({"ORA-00942", "ORA-01031"})
_LOGMINER_NOT_STARTED = "ORA-01306"
_PROBE_FIX = "look the Oracle error up; rerun oracdc check"


@dataclass(frozen=True)
class CheckOutcome:
    """One check: what was found and, unless it is ``ok``, what to run or change."""

    name: str
    status: CheckStatus
    found: str
    fix: str | None = None


class _ProbeError(Exception):
    """A probe statement failed with an Oracle error (its full code in ``code``)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def run_checks(
    connection: Any,
    user: str,
    tables: Sequence[TableDef],
    current_scn: int,
    *,
    catalog_connection: Any = None,
    pdb: str | None = None,
) -> list[CheckOutcome]:
    """Every check over ``connection`` (a python-oracledb connection or the simulator's);
    what is read in the tables' container (GV$TRANSACTION, snapshot reads) over
    ``catalog_connection`` when set (a CDB$ROOT session's connection into ``pdb``, the
    configured ``source.pdb``)."""
    version = getattr(connection, "version", None)
    catalog = catalog_connection or connection
    database_outcomes, scope = _database_checks(connection, user, version, pdb)
    outcomes = [
        _version(version),
        *database_outcomes,
        *_view_grants(connection, catalog, user, scope),
        _logminer_contents_grant(connection, user),
        _logmining_privilege(connection, user),
        _dbms_logmnr_grant(connection, user),
    ]
    if scope is not None and scope.pdb is not None:
        outcomes.append(_container_data(connection, user, scope.pdb))
    for table in tables:
        outcomes.append(_flashback_grant(catalog, user, table, current_scn))
        outcomes.append(table_logging(table))
    outcomes += _redo_logging(connection, catalog, user, tables)
    return outcomes


def failed(outcomes: Iterable[CheckOutcome]) -> list[CheckOutcome]:
    return [o for o in outcomes if o.status == "failed"]


def table_logging(table: TableDef) -> CheckOutcome:
    """The table's supplemental logging level and what it means for its replica."""
    name = f"logging {table.qualified_name}"
    level = table.supplemental_logging
    quoted = queries.qualified_name(table.owner, table.name)
    fix = f"ALTER TABLE {quoted} ADD SUPPLEMENTAL LOG DATA (ALL) COLUMNS;"
    keyed_by = ", ".join(consolidation_key(table))
    if level == "ALL":
        return CheckOutcome(name, "ok", f"ALL (replica keyed by {keyed_by})")
    if table.primary_key:
        found = (
            f"{level}: updates carry only changed columns, so the replica is keyed by ROWID "
            f"({keyed_by}) and merges partial images; row-moving DDL needs a re-snapshot"
        )
    else:
        found = f"{level}: no primary key, replica keyed by ROWID; partial update images"
    return CheckOutcome(name, "warning", found, fix)


def _redo_logging(
    connection: Any, catalog: Any, user: str, tables: Sequence[TableDef]
) -> list[CheckOutcome]:
    """FORCE LOGGING (V$DATABASE); without it, a warning per replicated table with segments
    marked NOLOGGING (read in the tables' container): a direct-path load into one
    (INSERT /*+ APPEND */, SQL*Loader direct path) writes its rows with no redo, LogMiner
    never sees them (OCI-26767), and their replica rows are missing with no error."""
    name = "force logging"
    fix = "ALTER DATABASE FORCE LOGGING;"
    try:
        force = str(_fetch_one(connection, queries.FORCE_LOGGING)[0])
    except _ProbeError as error:  # V$DATABASE unreadable: its own check fails already
        grant = f"GRANT SELECT ON V_$DATABASE TO {user};"
        fix = grant if error.code in _NO_ACCESS else _PROBE_FIX
        return [CheckOutcome(name, "warning", f"{error.code}: {error}", fix)]
    if force == "YES":
        return [CheckOutcome(name, "ok", "YES: every change is in the redo")]
    # NO, or one of the STANDBY NOLOGGING modes (18c+), whose loads skip the primary's redo
    warnings = []
    nologging_tables = 0
    for table in tables:
        table_name = f"redo logging {table.qualified_name}"
        binds: dict[str, object] = {"owner": table.owner, "table_name": table.name}
        try:
            segments = [
                str(row[0]) for row in _fetch_all(catalog, queries.NOLOGGING_SEGMENTS, binds)
            ]
        except _ProbeError as error:
            warnings.append(
                CheckOutcome(table_name, "warning", f"{error.code}: {error}", _PROBE_FIX)
            )
            continue
        if segments:
            nologging_tables += 1
            quoted = queries.qualified_name(table.owner, table.name)
            found = (
                f"NOLOGGING {', '.join(segments)}: a direct-path load (INSERT /*+ APPEND */, "
                "SQL*Loader direct path) into the table or a partition, and any write of a "
                "NOLOGGING LOB's data, has no redo and never reaches the replica"
            )
            table_fix = f"{fix} (or ALTER TABLE {quoted} LOGGING, and its partitions and LOBs)"
            warnings.append(CheckOutcome(table_name, "warning", found, table_fix))
    unread = len(warnings) - nologging_tables
    if nologging_tables or unread:
        found = (
            f"{force}: {nologging_tables} of {len(tables)} replicated tables have NOLOGGING "
            f"segments, {unread} could not be read"
        )
        return [CheckOutcome(name, "warning", found, fix), *warnings]
    found = (
        f"{force}: every replicated table is LOGGING now; a table made NOLOGGING later is not "
        "seen until the next check"
    )
    return [CheckOutcome(name, "ok", found)]


# -- database-wide checks ---------------------------------------------------------------------


def _version(version: object) -> CheckOutcome:
    if not isinstance(version, str) or not version:
        return CheckOutcome("version", "warning", "the driver did not report the server version")
    try:
        release = tuple(int(part) for part in version.split(".")[:2])
    except ValueError:
        return CheckOutcome("version", "warning", f"unreadable server version {version!r}")
    if release < MIN_VERSION:
        return CheckOutcome(
            "version",
            "failed",
            f"Oracle {version}",
            "oracdc needs Oracle Database 12.1 or later (python-oracledb thin mode, LOGMINING)",
        )
    return CheckOutcome("version", "ok", f"Oracle {version}")


def _database_checks(
    connection: Any, user: str, version: object, pdb: str | None
) -> tuple[list[CheckOutcome], MiningScope | None]:
    """Log mode and minimal supplemental logging (V$DATABASE), then the container; and the
    mining scope (None when capture cannot run there or V$DATABASE is not readable)."""
    try:
        database = _fetch_one(connection, queries.DATABASE_INFO)
        row = _fetch_one(connection, queries.CONTAINER_INFO)
    except _ProbeError as error:
        refused = _refused("database settings", error, f"GRANT SELECT ON V_$DATABASE TO {user};")
        return [refused], None
    container = Container(cdb=str(row[0]) == "YES", name=str(row[1]))
    checks = [_archivelog(str(database[1])), _minimal_logging(str(database[2]))]
    try:
        scope = mining_scope(container, version if isinstance(version, str) else None, pdb)
    except SourceError as error:
        return [*checks, CheckOutcome("container", "failed", str(error), error.fix)], None
    where = f"{container.name}: " if container.cdb else "not a multitenant database: "
    return [*checks, CheckOutcome("container", "ok", where + scope.describe())], scope


def _archivelog(log_mode: str) -> CheckOutcome:
    if log_mode == "ARCHIVELOG":
        return CheckOutcome("archive log mode", "ok", log_mode)
    return CheckOutcome(
        "archive log mode",
        "failed",
        f"LOG_MODE is {log_mode}: redo is overwritten before it can be mined",
        "as SYSDBA: SHUTDOWN IMMEDIATE; STARTUP MOUNT; ALTER DATABASE ARCHIVELOG; "
        "ALTER DATABASE OPEN;",
    )


def _minimal_logging(minimal: str) -> CheckOutcome:
    if minimal in ("YES", "IMPLICIT"):
        return CheckOutcome("minimal supplemental logging", "ok", minimal)
    return CheckOutcome(
        "minimal supplemental logging",
        "failed",
        f"SUPPLEMENTAL_LOG_DATA_MIN is {minimal}: LogMiner cannot rebuild row changes",
        "ALTER DATABASE ADD SUPPLEMENTAL LOG DATA;",
    )


# -- grants -----------------------------------------------------------------------------------


def _view_grants(
    connection: Any, catalog: Any, user: str, scope: MiningScope | None
) -> list[CheckOutcome]:
    """Each view the scope reads, probed where it is read (GV$TRANSACTION and
    V$PDB_INCARNATION in the tables' container, the latter only when that is a PDB; the log
    catalog views not at all for per-PDB mining)."""
    outcomes = []
    for view, grant in PROBED_VIEWS:
        if scope is not None and not scope.add_logs and view in LOG_CATALOG_VIEWS:
            continue
        if view in PDB_VIEWS and (scope is None or not scope.in_pdb):
            continue
        name = f"grant {view}"
        where = catalog if view in _IN_THE_PDB else connection
        try:
            _fetch_one(where, queries.VIEW_PROBE.format(view=view))
        except _ProbeError as error:
            outcomes.append(_refused(name, error, grant.format(user=user)))
            continue
        outcomes.append(CheckOutcome(name, "ok", "readable"))
    return outcomes


def _container_data(connection: Any, user: str, pdb: str) -> CheckOutcome:
    """A root session sees the PDB's rows in V$LOGMNR_CONTENTS and the V$ views only when the
    user's CONTAINER_DATA covers the PDB (a common user's default is the root alone)."""
    name = f"container data {pdb}"
    fix = f"ALTER USER {user} SET CONTAINER_DATA=ALL CONTAINER=CURRENT; (as SYSDBA in CDB$ROOT)"
    try:
        (visible,) = _fetch_one(connection, queries.PDB_VISIBLE, {"pdb": pdb})
    except _ProbeError as error:
        return _refused(name, error, f"GRANT SELECT ON V_$PDBS TO {user};")
    if int(visible) == 0:
        return CheckOutcome(
            name,
            "failed",
            f"V$PDBS in CDB$ROOT does not show {pdb}: either no such PDB, or {user}'s "
            "CONTAINER_DATA leaves it out, and mining would then see none of its changes",
            fix,
        )
    return CheckOutcome(name, "ok", f"{pdb} is visible from CDB$ROOT")


def _logminer_contents_grant(connection: Any, user: str) -> CheckOutcome:
    name = "grant V$LOGMNR_CONTENTS"
    try:
        _fetch_one(connection, queries.VIEW_PROBE.format(view="V$LOGMNR_CONTENTS"))
    except _ProbeError as error:
        if error.code == _LOGMINER_NOT_STARTED:
            return CheckOutcome(name, "ok", "readable (no LogMiner session yet)")
        return _refused(name, error, f"GRANT SELECT ON V_$LOGMNR_CONTENTS TO {user};")
    return CheckOutcome(name, "ok", "readable")


def _logmining_privilege(connection: Any, user: str) -> CheckOutcome:
    privileges = {str(row[0]) for row in _fetch_all(connection, queries.SESSION_PRIVILEGES)}
    if "LOGMINING" in privileges:
        return CheckOutcome("privilege LOGMINING", "ok", "granted")
    return CheckOutcome(
        "privilege LOGMINING", "failed", "not granted", f"GRANT LOGMINING TO {user};"
    )


def _dbms_logmnr_grant(connection: Any, user: str) -> CheckOutcome:
    visible = int(_fetch_one(connection, queries.DBMS_LOGMNR_VISIBLE)[0])
    if visible:
        return CheckOutcome("grant DBMS_LOGMNR", "ok", "executable")
    return CheckOutcome(
        "grant DBMS_LOGMNR",
        "failed",
        "SYS.DBMS_LOGMNR cannot be executed",
        f"GRANT EXECUTE ON DBMS_LOGMNR TO {user}; (or GRANT EXECUTE_CATALOG_ROLE TO {user};)",
    )


def _flashback_grant(connection: Any, user: str, table: TableDef, current_scn: int) -> CheckOutcome:
    name = f"snapshot read {table.qualified_name}"
    quoted = queries.qualified_name(table.owner, table.name)
    try:
        _fetch_one(connection, queries.FLASHBACK_PROBE.format(table=quoted), {"scn": current_scn})
    except _ProbeError as error:
        return _refused(
            name, error, f"GRANT SELECT, FLASHBACK ON {quoted} TO {user}; (or the ANY TABLE forms)"
        )
    return CheckOutcome(name, "ok", "AS OF SCN readable")


def _refused(name: str, error: _ProbeError, grant: str) -> CheckOutcome:
    """A probe that failed: the grant when the error means no access, else the error itself."""
    fix = grant if error.code in _NO_ACCESS else _PROBE_FIX
    return CheckOutcome(name, "failed", f"{error.code}: {error}", fix)


# -- statements -------------------------------------------------------------------------------


def _fetch_one(
    connection: Any, statement: str, binds: dict[str, object] | None = None
) -> Sequence[Any]:
    rows = _fetch_all(connection, statement, binds)
    if not rows:
        raise SourceError(f"the pre-flight query returned no row: {statement}")
    return tuple(rows[0])


def _fetch_all(
    connection: Any, statement: str, binds: dict[str, object] | None = None
) -> list[Any]:
    return _with_cursor(connection, lambda cursor: _execute(cursor, statement, binds))


def _execute(cursor: Any, statement: str, binds: dict[str, object] | None) -> list[Any]:
    try:
        cursor.execute(statement, binds or {})
    except Exception as error:
        code = full_code(error)
        if code is None:
            raise
        raise _ProbeError(code, error_message(error)) from error
    return list(cursor.fetchall())


def _with_cursor(connection: Any, work: Callable[[Any], list[Any]]) -> list[Any]:
    cursor = connection.cursor()
    try:
        return work(cursor)
    finally:
        cursor.close()
