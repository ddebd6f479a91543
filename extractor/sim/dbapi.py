"""The simulator's DB-API 2.0 face: ``SimConnection`` / ``SimCursor`` answer exactly the
statements ``extractor.source.oracle.queries`` sends, from a :class:`SimDatabase`.

Statements are recognised by their normalised text (whitespace collapsed), never parsed as
general SQL; anything else raises :class:`UnknownStatementError` naming it. Oracle errors
are raised as real python-oracledb exceptions (ORA-00904, 00942, 01008, 01291, 01292, 01307,
01466, 01555, 08181), so the Oracle source running over a SimConnection is the code under
test. The session's NLS must be the database's (the simulator renders SQL_REDO under
``SimDatabase.nls`` only).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from extractor.dictionary import ROW_ARCHIVAL_COLUMN, TableDef
from extractor.errors import SimUsageError
from extractor.logminer_row import (
    OBJECT_ROW_ID_SUFFIX,
    TRANSACTION_CONTROL_CODES,
    LogMinerRow,
    OperationCode,
)
from extractor.sim.column_values import BcDate
from extractor.sim.database import ACTIVE_ROW, SimDatabase
from extractor.sim.oracle_errors import raise_oracle_error
from extractor.sim.redo_logs import RedoLogFile
from extractor.source.oracle import queries
from extractor.source.oracle.container import server_release
from extractor.source.oracle.logminer_session import parse_utc_offset
from extractor.source.oracle.redo_logs import OPEN_ENDED_NEXT_CHANGE
from extractor.source.oracle.snapshot import (
    row_as_of_statement,
    select_expression,
    snapshot_statement,
)
from extractor.source.rowid_order import rowid_sort_key
from extractor.spark_types import is_unbounded_number

Row = tuple[Any, ...]
_BIND = re.compile(r":([A-Za-z_][A-Za-z0-9_]*)")
_SNAPSHOT = re.compile(
    r'^SELECT (?P<select>.*), ROWIDTOCHAR\(ROWID\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" '
    r"AS OF SCN :scn (?:WHERE (?P<ranged>ROWID BETWEEN CHARTOROWID\(:low_rowid\) AND "
    r"CHARTOROWID\(:high_rowid\) )?(?:(?:AND |WHERE )?ROWID > CHARTOROWID\(:after_rowid\) )?)?"
    r"ORDER BY ROWID$"
)
_ROW_AS_OF = re.compile(
    r'^SELECT (?P<select>.*), ROWIDTOCHAR\(ROWID\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" '
    r"AS OF SCN :scn WHERE ROWID = CHARTOROWID\(:row_id\)$"
)
_VERIFY_COUNT = re.compile(
    r'^SELECT COUNT\(\*\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" AS OF SCN :scn$'
)
_VERIFY_DIGESTS = re.compile(
    r'^SELECT \* FROM \(SELECT .* FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" AS OF SCN :scn\) '
    r"WHERE TO_NUMBER\(SUBSTR\(KEY_DIGEST, 1, 3\), 'XXX'\) BETWEEN :bucket_lo AND :bucket_hi$"
)
_VIEW_PROBE = re.compile(r"^SELECT COUNT\(\*\) FROM (?P<view>G?V\$[A-Z_]+) WHERE 1 = 0$")
_FLASHBACK_PROBE = re.compile(
    r'^SELECT COUNT\(\*\) FROM "(?P<owner>[^"]+)"\."(?P<table>[^"]+)" AS OF SCN :scn WHERE 1 = 0$'
)
VARCHAR2_MAX_BYTES = 4000
_FAULT_MESSAGES = {
    1291: "missing logfile",
    310: "archived log contains sequence 12; sequence 11 required",
    334: "archived log: '/u01/app/oracle/oradata/ORCLPDB1/redo02.log'",
}
_LOGMNR_CONTENTS_HEAD = queries.normalise(queries.LOGMNR_CONTENTS.split("{")[0])
_LOG_GROUP_TYPES = {"ALL": ["ALL COLUMN LOGGING"], "PRIMARY KEY": ["PRIMARY KEY LOGGING"]}
_ROOT = "CDB$ROOT"
_SET_CONTAINER = re.compile(r"^ALTER SESSION SET CONTAINER = (?P<name>[A-Za-z0-9_$#]+)$")
_SET_ROW_ARCHIVAL_VISIBILITY = re.compile(
    r"^ALTER SESSION SET ROW ARCHIVAL VISIBILITY = (?P<rows>ALL|ACTIVE)$", re.IGNORECASE
)


class UnknownStatementError(SimUsageError):
    """A statement the simulator does not answer (not one of queries.py's)."""


class SimConnection:
    """A connection to a simulated Oracle; one LogMiner session state, as a real session.
    On a multitenant database it is in a container (``server.container_name`` until
    ``ALTER SESSION SET CONTAINER``): the tables are visible in ``server.pdb_name`` only."""

    def __init__(self, db: SimDatabase) -> None:
        self.db = db
        self.closed = False
        self.switched_to: str | None = None  # by ALTER SESSION SET CONTAINER
        # ALTER SESSION SET ROW ARCHIVAL VISIBILITY: ACTIVE (Oracle's default) hides the
        # archived rows of a ROW ARCHIVAL table from queries, ALL shows them.
        self.row_archival_visibility = "ACTIVE"
        self.logminer_files: list[str] = []
        self.logminer_range: tuple[int, int] | None = None
        self.statements: list[str] = []  # every statement and procedure sent, for tests
        # Errors raised on demand, each once, in order: ("START_LOGMNR", code) fails the next
        # DBMS_LOGMNR.START_LOGMNR, ("FETCH", code) the next fetch of V$LOGMNR_CONTENTS rows
        # after the first batch (ORA-01291 log not yet available, ORA-00310 / ORA-00334 log
        # switched and overwritten while it was mined).
        self.faults: list[tuple[str, int]] = []

    def raise_fault(self, where: str) -> None:
        """Raise the first pending fault for ``where`` (and forget it)."""
        for index, (point, code) in enumerate(self.faults):
            if point == where:
                del self.faults[index]
                raise_oracle_error(code, _FAULT_MESSAGES.get(code, "simulated failure"))

    @property
    def version(self) -> str:
        """The server release, as python-oracledb's ``Connection.version`` gives it."""
        return self.db.server.version

    @property
    def container(self) -> str | None:
        """The session's container (CON_NAME); None on a non-CDB database."""
        if not self.db.server.cdb:
            return None
        return self.switched_to or self.db.server.container_name

    def sees_tables(self) -> bool:
        """The session is where the tables are (a non-CDB database, or their PDB)."""
        return self.container in (None, self.db.server.pdb_name)

    def in_pdb(self) -> bool:
        return self.container not in (None, _ROOT)

    def cursor(self) -> SimCursor:
        if self.closed:
            raise_oracle_error(3114, "not connected to ORACLE")
        return SimCursor(self)

    def close(self) -> None:
        self.closed = True

    def commit(self) -> None:
        """Nothing to commit: the extractor only reads."""

    def rollback(self) -> None:
        """Nothing to roll back: the extractor only reads."""


class SimCursor:
    """A cursor over a SimConnection (execute, callproc, fetch*, iteration)."""

    def __init__(self, connection: SimConnection) -> None:
        self.connection = connection
        self.arraysize = 100
        self.prefetchrows = 2
        self.outputtypehandler: Any = None
        self.rowcount = -1
        self._rows: list[Row] = []
        self._holds_bc = False  # a value python-oracledb could not fetch (_built)
        self._position = 0
        self._description: list[tuple[Any, ...]] | None = None
        self._mined = False  # the result is V$LOGMNR_CONTENTS rows
        self._handlers: dict[str, Callable[[Mapping[str, Any]], list[Row]]] = {
            queries.normalise(queries.CURRENT_SCN): self._current_scn,
            queries.normalise(queries.INCARNATION): self._incarnation,
            queries.normalise(queries.PDB_INCARNATION): self._pdb_incarnation,
            queries.normalise(queries.MINABLE_SCN): self._minable_scn,
            queries.normalise(queries.SERVER_UTC_OFFSET): self._server_utc_offset,
            queries.normalise(queries.DATABASE_INFO): self._database_info,
            queries.normalise(queries.FORCE_LOGGING): self._force_logging,
            queries.normalise(queries.NOLOGGING_SEGMENTS): self._nologging_segments,
            queries.normalise(queries.OPEN_TRANSACTIONS_START_SCN): self._open_transactions,
            queries.normalise(queries.REDO_THREADS): self._redo_threads,
            queries.normalise(queries.LIST_TABLES): self._list_tables,
            queries.normalise(queries.TABLE_COLUMNS): self._table_columns,
            queries.normalise(queries.PRIMARY_KEY_COLUMNS): self._primary_key,
            queries.normalise(queries.LOG_GROUP_TYPES): self._log_groups,
            queries.normalise(queries.TABLE_OBJECT_IDS): self._object_ids,
            queries.normalise(queries.OBJECT_EXISTS): self._object_exists,
            queries.normalise(queries.ARCHIVED_LOGS): self._archived_logs,
            queries.normalise(queries.ONLINE_LOGS): self._online_logs,
            queries.normalise(queries.CONTAINER_INFO): self._container_info,
            queries.normalise(queries.PDB_VISIBLE): self._pdb_visible,
            queries.normalise(queries.SESSION_PRIVILEGES): self._session_privileges,
            queries.normalise(queries.DBMS_LOGMNR_VISIBLE): self._dbms_logmnr_visible,
            queries.normalise(queries.TABLE_EXTENTS): self._table_extents,
        }

    @property
    def db(self) -> SimDatabase:
        return self.connection.db

    @property
    def description(self) -> list[tuple[Any, ...]] | None:
        return self._description

    # -- DB-API ---------------------------------------------------------------------------

    def execute(
        self, statement: str, parameters: Mapping[str, Any] | None = None, **keyword: Any
    ) -> SimCursor:
        self._check_open()
        binds = dict(parameters or {}, **keyword)
        text = queries.normalise(statement)
        self.connection.statements.append(text)
        if text.upper().startswith("ALTER SESSION SET "):
            self._alter_session(text)
            self._set_result([], None)
            return self
        _check_binds(text, binds)
        handler = self._handlers.get(text)
        if handler is not None:
            self._set_result(handler(binds), None)
            return self
        verify = _VERIFY_COUNT.match(text) or _VERIFY_DIGESTS.match(text)
        if verify:
            self._set_result(self._verify(verify, text, binds), None)
            return self
        probe = _VIEW_PROBE.match(text) or _FLASHBACK_PROBE.match(text)
        if probe:
            self._set_result(self._probe(probe), None)
            return self
        if text.startswith(_LOGMNR_CONTENTS_HEAD):
            self._set_result(self._logmnr_contents(text, binds), None)
            self._mined = True
            return self
        snapshot = _SNAPSHOT.match(text)
        if snapshot:
            self._set_result(self._snapshot(snapshot, text, binds), None)
            return self
        row_as_of = _ROW_AS_OF.match(text)
        if row_as_of:
            self._set_result(self._row_as_of(row_as_of, text, binds), None)
            return self
        raise UnknownStatementError(f"the simulator does not answer this statement: {text}")

    def callproc(
        self,
        name: str,
        parameters: Sequence[Any] | None = None,
        keyword_parameters: Mapping[str, Any] | None = None,
    ) -> list[Any]:
        self._check_open()
        args = {k.lower(): v for k, v in (keyword_parameters or {}).items()}
        self.connection.statements.append(name)
        if name == queries.ADD_LOGFILE:
            self._add_logfile(args)
        elif name == queries.START_LOGMNR:
            self._start_logmnr(args)
        elif name == queries.END_LOGMNR:
            self._end_logmnr()
        else:
            raise UnknownStatementError(f"the simulator has no procedure {name}")
        return list(parameters or [])

    def fetchone(self) -> Row | None:
        if self._position >= len(self._rows):
            return None
        row = self._rows[self._position]
        self._position += 1
        return self._built([row])[0]

    def fetchmany(self, size: int | None = None) -> list[Row]:
        if self._mined and self._position > 0:
            self.connection.raise_fault("FETCH")
        count = self.arraysize if size is None else size
        rows = self._rows[self._position : self._position + count]
        self._position += len(rows)
        return self._built(rows)

    def fetchall(self) -> list[Row]:
        rows = self._rows[self._position :]
        self._position = len(self._rows)
        return self._built(rows)

    def __iter__(self) -> Iterator[Row]:
        while (row := self.fetchone()) is not None:
            yield row

    def var(self, typ: Any, size: int = 0, arraysize: int = 1) -> tuple[Any, int]:
        """Accepted for output type handlers; the simulator already returns final types."""
        return (typ, arraysize)

    def close(self) -> None:
        self._rows = []

    # -- statements -----------------------------------------------------------------------

    def _alter_session(self, text: str) -> None:
        switch = _SET_CONTAINER.match(text)
        if switch:
            self._set_container(switch.group("name").upper())
            return
        visibility = _SET_ROW_ARCHIVAL_VISIBILITY.match(text)
        if visibility:
            if server_release(self.db.server.version) < (12, 1):  # no In-Database Archiving yet
                raise_oracle_error(2248, "invalid option for ALTER SESSION")
            self.connection.row_archival_visibility = visibility.group("rows").upper()
            return
        wanted = queries.normalise(self.db.nls.alter_session_sql())
        if text != wanted:
            raise SimUsageError(
                f"the simulator renders SQL_REDO under its own NLS only; expected {wanted!r}, "
                f"got {text!r}"
            )

    def _current_scn(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.current_scn(),)]

    def _incarnation(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.dbid, self.db.resetlogs_change, self.db.resetlogs_time)]

    def _pdb_incarnation(self, binds: Mapping[str, Any]) -> list[Row]:
        """The PDB's DBID and V$PDB_INCARNATION's CURRENT row of the session's container:
        the PDB's, none in the root or on a non-CDB database; ORA-00942 when
        ``server.revoked`` holds it."""
        if "V$PDB_INCARNATION" in self.db.server.revoked:
            raise_oracle_error(942, "table or view does not exist")
        if not self.connection.in_pdb():
            return []
        db = self.db
        return [(db.pdb_dbid, db.pdb_incarnation, db.pdb_incarnation_scn, db.pdb_opened_scn)]

    def _minable_scn(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.written_scn(),)]

    def _server_utc_offset(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(self.db.server_time_zone,)]

    def _database_info(self, binds: Mapping[str, Any]) -> list[Row]:
        server, level = self.db.server, self.db.database_logging
        return [
            (
                self.db.database_name, server.log_mode, server.supplemental_log_data_min,
                "YES" if level == "PRIMARY KEY" else "NO", "YES" if level == "ALL" else "NO",
            )
        ]  # fmt: skip

    def _force_logging(self, binds: Mapping[str, Any]) -> list[Row]:
        """Read only by the pre-flight check: ORA-00942 when ``server.revoked`` holds
        V$DATABASE."""
        if "V$DATABASE" in self.db.server.revoked:
            raise_oracle_error(942, "table or view does not exist")
        return [(self.db.server.force_logging,)]

    def _nologging_segments(self, binds: Mapping[str, Any]) -> list[Row]:
        if not self.connection.sees_tables():
            return []
        name = f"{binds['owner']}.{binds['table_name']}"
        return [(segment,) for segment in self.db.server.nologging.get(name, ())]

    def _set_container(self, name: str) -> None:
        server = self.db.server
        if not server.cdb:
            raise_oracle_error(65090, "operation only allowed in a container database")
        if name not in {_ROOT, server.pdb_name, server.clone_pdb}:
            raise_oracle_error(65011, f"Pluggable database {name} does not exist.")
        self.connection.switched_to = name

    def _pdb_visible(self, binds: Mapping[str, Any]) -> list[Row]:
        server = self.db.server
        names = {server.pdb_name, server.clone_pdb} if self._sees_container_data() else set()
        return [(1 if binds["pdb"] in names else 0,)]

    def _sees_container_data(self) -> bool:
        """A root session's V$ views show the PDBs' rows (server.container_data_all)."""
        return self.connection.container != _ROOT or self.db.server.container_data_all

    def _container_info(self, binds: Mapping[str, Any]) -> list[Row]:
        if self.connection.container is None:
            return [("NO", self.db.database_name)]
        return [("YES", self.connection.container)]

    def _session_privileges(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(privilege,) for privilege in self.db.server.session_privileges()]

    def _dbms_logmnr_visible(self, binds: Mapping[str, Any]) -> list[Row]:
        return [(0 if "DBMS_LOGMNR" in self.db.server.revoked else 1,)]

    def _table_extents(self, binds: Mapping[str, Any]) -> list[Row]:
        """DBA_EXTENTS as ROWID bounds; ORA-00942 when ``server.revoked`` holds DBA_EXTENTS."""
        if "DBA_EXTENTS" in self.db.server.revoked:
            raise_oracle_error(942, "table or view does not exist")
        if self._find_table(binds) is None:
            return []
        return list(self.db.table_extents(str(binds["owner"]), str(binds["table_name"])))

    def _probe(self, match: re.Match[str]) -> list[Row]:
        """The pre-flight probes: ORA-00942 / ORA-01031 for what ``server.revoked`` holds."""
        server = self.db.server
        view = match.groupdict().get("view")
        if view is not None:
            if view in server.revoked:
                raise_oracle_error(942, "table or view does not exist")
            if view == "V$LOGMNR_CONTENTS" and self.connection.logminer_range is None:
                raise_oracle_error(
                    1306, "dbms_logmnr.start_logmnr() must be invoked before selecting from "
                    "v$logmnr_contents",
                )  # fmt: skip
            return [(0,)]
        owner, table = match.group("owner"), match.group("table")
        self._visible_table(owner, table)  # ORA-00942 when it does not exist here
        if not server.may_read_table(f"{owner}.{table}"):
            raise_oracle_error(1031, "insufficient privileges")
        return [(0,)]

    def _open_transactions(self, binds: Mapping[str, Any]) -> list[Row]:
        """V$TRANSACTION lists the session's instance's transactions; GV$TRANSACTION those
        of every instance (whichever queries.OPEN_TRANSACTIONS_START_SCN names)."""
        if not self._sees_container_data():
            return [(None,)]  # the PDB's transactions are not the root's container data
        every_instance = "FROM GV$TRANSACTION" in queries.OPEN_TRANSACTIONS_START_SCN
        instance = None if every_instance else self.db.local_instance
        open_now = self.db.open_transactions(instance)
        starts = [s for _, s in open_now if s <= int(binds["at_scn"])]
        return [(min(starts) if starts else None,)]

    def _list_tables(self, binds: Mapping[str, Any]) -> list[Row]:
        owner_like = _like_regex(str(binds["owner_pattern"]))
        table_like = _like_regex(str(binds["table_pattern"]))
        if not self.connection.sees_tables():
            return []
        return sorted(
            (t.owner, t.name)
            for t in self.db.tables()
            if owner_like.match(t.owner)
            and table_like.match(t.name)
            and self._replicable(t.owner, t.name)
        )

    def _replicable(self, owner: str, name: str) -> bool:
        """The kind and name conditions of queries.LIST_TABLES (ALL_TABLES columns)."""
        if self.db.table_kinds.get((owner, name), "IOT") != "IOT":
            return False  # TEMPORARY = 'Y', IOT_TYPE overflow / mapping, NESTED, SECONDARY
        return not any(_like_regex(p).match(name) for p in queries.NON_REPLICABLE_NAMES)

    def _find_table(self, binds: Mapping[str, Any]) -> TableDef | None:
        """The table the dictionary query names, if the session's container has it."""
        key = (binds["owner"], binds["table_name"])
        if not self.connection.sees_tables():
            return None
        return next((t for t in self.db.tables() if (t.owner, t.name) == key), None)

    def _visible_table(self, owner: str, name: str) -> TableDef:
        """The table, or ORA-00942 when it does not exist in the session's container."""
        if not self.connection.sees_tables():
            raise_oracle_error(942, "table or view does not exist")
        return self.db.table(owner, name)

    def _table_columns(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        text = queries.normalise(queries.TABLE_COLUMNS)
        if "VIRTUAL_COLUMN = 'NO'" not in text:
            table = self.db.table_with_virtual(table.owner, table.name)  # ALL_TAB_COLUMNS
        else:
            table = self.db.table_as_listed(table.owner, table.name)
        invisible = self.db.invisible_columns(table.owner, table.name)
        if "USER_GENERATED = 'YES'" in text and f"'{ROW_ARCHIVAL_COLUMN}'" not in text:
            table = dataclasses.replace(table, columns=tuple(
                c for c in table.columns if c.name != ROW_ARCHIVAL_COLUMN))  # fmt: skip
        if "HIDDEN_COLUMN = 'NO'" in text:
            table = dataclasses.replace(table, columns=tuple(
                c for c in table.columns if c.name not in invisible))  # fmt: skip
        # COLUMN_ID numbers the visible columns 1, 2, … in their order (none after a dropped
        # one is skipped); an invisible one has none.
        shown = [c.name for c in table.columns if c.name not in invisible]
        return [
            (c.name, None if c.name in invisible else shown.index(c.name) + 1, c.data_type,
             c.data_length, c.data_precision, c.data_scale, "Y" if c.nullable else "N")
            for c in table.columns
        ]  # fmt: skip

    def _primary_key(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        return [] if table is None else [(name,) for name in table.primary_key]

    def _log_groups(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        return [(kind,) for kind in _LOG_GROUP_TYPES.get(table.supplemental_logging, [])]

    def _object_ids(self, binds: Mapping[str, Any]) -> list[Row]:
        table = self._find_table(binds)
        if table is None:
            return []
        return [(object_id,) for object_id, _ in self.db.table_objects(table.owner, table.name)]

    def _object_exists(self, binds: Mapping[str, Any]) -> list[Row]:
        if not self.connection.sees_tables():
            return [(0,)]
        return [(1 if self.db.object_exists(int(binds["object_id"])) else 0,)]

    def _archived_logs(self, binds: Mapping[str, Any]) -> list[Row]:
        """Per (THREAD#, SEQUENCE#) the available copy (STATUS 'A') on the lowest DEST_ID of
        the local valid destinations (``SimDatabase.archive_destinations``), of the current
        incarnation (RESETLOGS_CHANGE# and RESETLOGS_TIME, which the id stands for here)."""
        start, end = int(binds["start_scn"]), int(binds["end_scn"])
        copies: dict[tuple[int, int], RedoLogFile] = {}
        for f in self.db.log_files():
            if (
                not f.is_online
                and f.archived
                and f.status == "A"
                and f.dest_id in self.db.archive_destinations
                and (f.resetlogs_change, f.resetlogs_id)
                == (self.db.resetlogs_change, self.db.resetlogs_id)
                and f.next_change is not None
                and f.next_change > start
                and f.first_change <= end
            ):
                key = (f.thread, f.sequence)
                if key not in copies or f.dest_id < copies[key].dest_id:
                    copies[key] = f
        return [
            (f.name, f.thread, f.sequence, f.first_change, f.next_change)
            for _, f in sorted(copies.items())
        ]

    def _redo_threads(self, binds: Mapping[str, Any]) -> list[Row]:
        return list(self.db.redo_threads())

    def _online_logs(self, binds: Mapping[str, Any]) -> list[Row]:
        """Per online group of the range, MIN(MEMBER): with queries.ONLINE_LOGS' KEEP (DENSE_RANK
        FIRST ORDER BY NVL2(F.STATUS, 1, 0)), among the members V$LOGFILE shows in use
        (STATUS NULL) when the group has any (whichever the statement's text asks for)."""
        start, end = int(binds["start_scn"]), int(binds["end_scn"])
        in_use_first = "ORDER BY NVL2(F.STATUS, 1, 0)" in queries.ONLINE_LOGS
        rows = []
        for f in self.db.log_files():
            next_change = OPEN_ENDED_NEXT_CHANGE if f.next_change is None else f.next_change
            if f.is_online and next_change > start and f.first_change <= end:
                members = list(f.members)
                in_use = [m for m in members if m not in self.db.log_member_status]
                if in_use_first and in_use:
                    members = in_use
                row = (min(members), f.thread, f.sequence, f.first_change, next_change)
                rows.append((*row, f.status))
        return sorted(rows, key=lambda r: (r[1], r[2]))

    def _logmnr_contents(self, text: str, binds: Mapping[str, Any]) -> list[Row]:
        """queries.LOGMNR_CONTENTS as logminer_contents_query() builds it for these binds."""
        owners = _numbered(binds, "owner_")
        tables = list(zip(_numbered(binds, "table_owner_"), _numbered(binds, "table_name_"),
                          strict=True))  # fmt: skip
        objects = [int(n) for n in _numbered(binds, "obj_")]
        pdb = binds.get("pdb")
        variants = {
            queries.normalise(queries.logminer_contents_query(
                owners, tables, objects, pdb, internal_rows=internal)[0]): internal
            for internal in (False, True)
        }  # fmt: skip
        if text not in variants:
            raise UnknownStatementError(f"the simulator does not answer this statement: {text}")
        if self.connection.logminer_range is None:
            raise_oracle_error(1306, "dbms_logmnr.start_logmnr() must be invoked before selecting")
        session_start, session_end = self.connection.logminer_range
        start = max(session_start, int(binds["start_scn"]))
        end = min(session_end, int(binds["end_scn"]))
        rows = self._containers_rows(start, end, session_start)
        wanted = _Filter(
            set(owners), set(tables), set(objects), None if pdb is None else str(pdb),
            internal_rows=variants[text],
            holes_of_every_container=_HOLES_OF_EVERY_CONTAINER in queries.LOGMNR_CONTAINER_FILTER,
        )  # fmt: skip
        offset = parse_utc_offset(self.db.server_time_zone)
        return [_contents_tuple(r, offset) for r, con in rows if wanted.selects(r, con)]

    def _containers_rows(
        self, start: int, end: int, session_start: int
    ) -> list[tuple[LogMinerRow, str | None]]:
        """The session's rows with their SRC_CON_NAME: in a PDB (per-PDB mining, no added
        logs) that PDB's rows; in the root every container's (server_settings.py)."""
        server = self.db.server
        files = self.connection.logminer_files
        rows = self.db.logminer_contents(
            start, end, log_names=files or None, session_start_scn=session_start
        )
        if not server.cdb:
            return [(row, self.db.database_name) for row in rows]
        if self.connection.in_pdb():
            return [(row, server.pdb_name) for row in rows]
        if not server.container_data_all:
            return []  # the root's own rows only: the simulator runs nothing there
        # a hole in the redo is no PDB's: SRC_CON_NAME NULL ("may not always have values")
        tagged = [(row, None if row.operation_code == _MISSING_SCN else server.pdb_name)
                  for row in rows]  # fmt: skip
        if server.clone_pdb is None:
            return tagged
        lag = server.clone_lag_scns
        clone: list[tuple[LogMinerRow, str | None]] = [
            (row, server.clone_pdb)
            for row in self.db.clone_rows(start, end, lag)
            if row.operation_code != _MISSING_SCN
        ]
        return sorted(tagged + clone, key=lambda pair: pair[0].scn)  # stable: SCN order

    def _selected_columns(
        self, owner: str, name: str, text: str, statement: Callable[[TableDef], str]
    ) -> TableDef:
        """The table as far as ``text`` (``statement`` of it) selects its columns: all of them,
        with its virtual columns, or some of them in table order (a column policy's
        exclusions); ORA-00904 otherwise, ORA-00942 for an unknown table."""
        table = self._visible_table(owner, name)
        found = self._as_selected(table, text, statement)
        if found is None:
            raise_oracle_error(904, f"invalid identifier in the select list of {owner}.{name}")
        return found

    def _as_selected(
        self, table: TableDef, text: str, statement: Callable[[TableDef], str]
    ) -> TableDef | None:
        with_virtual = self.db.table_with_virtual(table.owner, table.name)
        listed = self.db.table_as_listed(table.owner, table.name)
        columns_text = text.replace(queries.qualified_name(table.owner, table.name), "")
        named = tuple(c for c in with_virtual.columns if f'"{c.name}"' in columns_text)
        named_as_listed = tuple(c for c in listed.columns if f'"{c.name}"' in columns_text)
        for candidate in (
            listed,
            table,
            with_virtual,
            dataclasses.replace(table, columns=named),
            dataclasses.replace(table, columns=named_as_listed),
        ):
            for read_as in (candidate, _with_number_choices(candidate, columns_text)):
                if text == queries.normalise(statement(read_as)):
                    return read_as
        return None

    def _snapshot(self, match: re.Match[str], text: str, binds: Mapping[str, Any]) -> list[Row]:
        owner, name = match.group("owner"), match.group("table")
        resume = "after_rowid" in binds
        ranged = match.group("ranged") is not None
        table = self._selected_columns(
            owner, name, text, lambda t: snapshot_statement(t, resume, ranged)
        )
        rows = self._seen(self.db.snapshot_rows(owner, name, int(binds["scn"])))
        between_reads = getattr(self.db, "between_snapshot_reads", None)
        if between_reads is not None:
            between_reads()  # the database goes on while a snapshot reads (a harness's hook)
        if ranged:
            low = rowid_sort_key(str(binds["low_rowid"]))
            high = rowid_sort_key(str(binds["high_rowid"]))
            rows = [r for r in rows if low <= rowid_sort_key(str(r["ROWID"])) <= high]
        if resume:
            after = rowid_sort_key(str(binds["after_rowid"]))
            rows = [r for r in rows if rowid_sort_key(str(r["ROWID"])) > after]
        limit = self.db.server.temp_sort_limit_rows
        if limit is not None and len(rows) > limit:
            raise_oracle_error(1652, "unable to extend temp segment by 128 in tablespace TEMP")
        rows.sort(key=lambda r: rowid_sort_key(str(r["ROWID"])))
        return _fetched_rows(table, rows)

    def _seen(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The rows a query of this session sees: under ROW ARCHIVAL VISIBILITY = ACTIVE
        (Oracle's default) not the archived ones (ORA_ARCHIVE_STATE other than '0')."""
        if self.connection.row_archival_visibility == "ALL":
            return rows
        return [r for r in rows if r.get(ROW_ARCHIVAL_COLUMN) in (None, ACTIVE_ROW)]

    def _row_as_of(self, match: re.Match[str], text: str, binds: Mapping[str, Any]) -> list[Row]:
        """ROW_AS_OF: the snapshot read of one ROWID."""
        owner, name = match.group("owner"), match.group("table")
        table = self._selected_columns(owner, name, text, row_as_of_statement)
        row_id = str(binds["row_id"])
        rows = self._seen(self.db.snapshot_rows(owner, name, int(binds["scn"])))
        return _fetched_rows(table, [r for r in rows if r["ROWID"] == row_id])

    def _verify(self, match: re.Match[str], text: str, binds: Mapping[str, Any]) -> list[Row]:
        """VERIFY_COUNT / VERIFY_DIGESTS: computed from the truth by the canonical rules."""
        from extractor.source.oracle.snapshot import column_converter
        from extractor.staging_contract import spark_column_name
        from extractor.verify import canonical
        from extractor.verify.source_digest import (
            count_statement,
            python_digest_row,
        )

        table = self._visible_table(match.group("owner"), match.group("table"))
        rows = self._seen(self.db.snapshot_rows(table.owner, table.name, int(binds["scn"])))
        if text == queries.normalise(count_statement(table)):
            return [(len(rows),)]
        per_column: bool | None = None
        for flag in (False, True):
            selected = self._as_selected(table, text, functools.partial(_digest_of, flag=flag))
            if selected is not None:
                table, per_column = selected, flag
                break
        if per_column is None:
            raise_oracle_error(904, f"invalid identifier in the verify query of {table.name}")
        expressions = {c.name: select_expression(c) for c in table.columns}
        converters = {c.name: column_converter(c) for c in table.columns}
        low, high = int(binds["bucket_lo"]), int(binds["bucket_hi"])
        answer: list[Row] = []
        for row in rows:
            values: dict[str, Any] = {"_row_id": str(row["ROWID"])}
            for column in table.columns:
                fetched = _fetched(row.get(column.name), expressions[column.name])
                converted = None if fetched is None else converters[column.name](fetched)
                values[spark_column_name(column.name)] = converted
            digest = python_digest_row(table, values, per_column)
            if low <= canonical.bucket_of(digest.key_digest) <= high:
                answer.append((*digest.key, digest.key_digest, *digest.digests))
        return answer

    # -- DBMS_LOGMNR ----------------------------------------------------------------------

    def _add_logfile(self, args: Mapping[str, Any]) -> None:
        if self.connection.in_pdb():
            raise_oracle_error(65040, "operation not allowed from within a pluggable database")
        name = str(args["logfilename"])
        if int(args.get("options", queries.LOGMNR_ADDFILE)) == queries.LOGMNR_NEW:
            self.connection.logminer_files = []
            self.connection.logminer_range = None
        if self.db.log_file_named(name) is None:
            raise_oracle_error(1284, f"file {name} cannot be opened")
        if self.db.log_member_status.get(name) in ("INVALID", "DELETED"):
            raise_oracle_error(1284, f"file {name} cannot be opened")
        if name in self.connection.logminer_files:
            raise_oracle_error(1289, f"cannot add duplicate logfile {name}")
        self.connection.logminer_files.append(name)

    def _start_logmnr(self, args: Mapping[str, Any]) -> None:
        self.connection.raise_fault("START_LOGMNR")
        per_pdb = self.connection.in_pdb()
        if per_pdb and server_release(self.db.server.version) < (19, 0):
            raise_oracle_error(65040, "operation not allowed from within a pluggable database")
        if not per_pdb and not self.connection.logminer_files:
            raise_oracle_error(
                1292, "no log file has been specified for the current LogMiner session"
            )
        start, end = int(args["startscn"]), int(args["endscn"])
        # ORA-01291 now, as Oracle does, when the logs (added, or in a PDB every thread's)
        # miss part of the range.
        self.db.check_minable(
            start, min(end, self.db.current_scn()), log_names=self.connection.logminer_files or None
        )
        self.connection.logminer_range = (start, end)

    def _end_logmnr(self) -> None:
        if not self.connection.logminer_files and self.connection.logminer_range is None:
            raise_oracle_error(1307, "no LogMiner session is currently active")
        self.connection.logminer_files = []
        self.connection.logminer_range = None

    # -- helpers --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self.connection.closed:
            raise_oracle_error(3114, "not connected to ORACLE")

    def _built(self, rows: list[Row]) -> list[Row]:
        """``rows`` as python-oracledb hands them out: a DATE before 1 AD cannot become a
        ``datetime``, and the fetch fails with the ``ValueError`` of its constructor."""
        if self._holds_bc:
            for row in rows:
                for value in row:
                    if isinstance(value, BcDate):
                        raise ValueError(f"year -{value.moment.year} is out of range")
        return rows

    def _set_result(self, rows: list[Row], description: list[tuple[Any, ...]] | None) -> None:
        self._mined = False
        self._rows = rows
        self._holds_bc = any(isinstance(value, BcDate) for row in rows for value in row)
        self._position = 0
        self.rowcount = len(rows)
        width = len(rows[0]) if rows else 0
        self._description = description or [
            (f"COLUMN_{i + 1}", None, None, None, None, None, True) for i in range(width)
        ]


def _fetched_rows(table: TableDef, rows: list[dict[str, object]]) -> list[Row]:
    """Snapshot rows as the driver fetches the snapshot select list, ROWID last. A
    ``TO_CHAR(…, 'SYYYY-…')`` text has a space before an AD year (BC timestamps are not
    simulated)."""
    expressions = [(c.name, select_expression(c)) for c in table.columns]
    return [
        (*(_fetched(row.get(name), expression) for name, expression in expressions),
         row["ROWID"])
        for row in rows
    ]  # fmt: skip


def _check_binds(text: str, binds: Mapping[str, Any]) -> None:
    wanted = set(_BIND.findall(_without_literals(text)))
    if wanted != set(binds):
        raise_oracle_error(
            1008, f"not all variables bound (statement wants {sorted(wanted)}, got {sorted(binds)})"
        )
    for name, value in binds.items():
        # A string bind is a VARCHAR2 in SQL: 4,000 bytes at most (MAX_STRING_SIZE=STANDARD).
        if isinstance(value, str) and len(value.encode()) > VARCHAR2_MAX_BYTES:
            raise_oracle_error(
                1460, f"unimplemented or unreasonable conversion requested (bind :{name})"
            )


def _without_literals(text: str) -> str:
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def _like_regex(pattern: str) -> re.Pattern[str]:
    """A LIKE pattern with ``\\`` as escape character, as a regular expression."""
    out = []
    index = 0
    while index < len(pattern):
        ch = pattern[index]
        if ch == "\\" and index + 1 < len(pattern):
            out.append(re.escape(pattern[index + 1]))
            index += 2
            continue
        out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        index += 1
    return re.compile("^" + "".join(out) + "$", re.DOTALL)


def _numbered(binds: Mapping[str, Any], prefix: str) -> list[Any]:
    """The values of binds ``<prefix>1``, ``<prefix>2``, … in order."""
    values: list[Any] = []
    while (value := binds.get(f"{prefix}{len(values) + 1}")) is not None:
        values.append(value)
    return values


@dataclass(frozen=True)
class _Filter:
    """The WHERE clause of queries.LOGMNR_CONTENTS (its IN-lists as sets; ``pdb``: the
    container filter, queries.LOGMNR_CONTAINER_FILTER)."""

    owners: set[str]
    tables: set[tuple[str, str]]
    objects: set[int]
    pdb: str | None = None
    internal_rows: bool = False  # queries.LOGMNR_INTERNAL_ROWS (SEQUENCE# is not modelled)
    # the container filter lets MISSING_SCN rows of any container (or none) through
    holes_of_every_container: bool = False

    def selects(self, row: LogMinerRow, container: str | None) -> bool:
        a_hole_kept = self.holes_of_every_container and row.operation_code == _MISSING_SCN
        if self.pdb is not None and container != self.pdb and not a_hole_kept:
            return False
        if row.operation_code == OperationCode.DDL and (row.info or "").startswith("INTERNAL DDL"):
            return False
        if row.operation_code in TRANSACTION_CONTROL_CODES:
            return True
        if self.internal_rows and row.operation_code == OperationCode.INTERNAL:
            row_id = row.row_id or ""
            return row.rollback == 0 and not row_id.endswith(OBJECT_ROW_ID_SUFFIX)
        if row.data_obj is not None and row.data_obj in self.objects:
            return True
        if row.seg_owner is None:
            return False
        if row.operation_code == OperationCode.DDL and row.seg_owner in self.owners:
            return True
        return row.table_name is not None and (row.seg_owner, row.table_name) in self.tables


_MISSING_SCN = OperationCode.MISSING_SCN
# the text of queries.LOGMNR_CONTAINER_FILTER that keeps every container's MISSING_SCN rows
_HOLES_OF_EVERY_CONTAINER = f"OR OPERATION_CODE = {int(_MISSING_SCN)})"


def _contents_tuple(row: LogMinerRow, server_offset: timedelta) -> Row:
    """The row in LOGMNR_CONTENTS' select-list order (timestamps as TO_CHAR gives them: in
    the server's time zone)."""
    return (
        row.scn, row.start_scn, row.commit_scn, _server_time(row.timestamp, server_offset),
        _server_time(row.commit_timestamp, server_offset), row.xid, row.operation,
        row.operation_code, row.seg_owner, row.table_name, row.row_id, row.rs_id, row.ssn,
        row.csf, row.rollback, row.status, row.info, row.username, row.sql_redo, row.data_obj,
    )  # fmt: skip


def _server_time(utc_text: str | None, offset: timedelta) -> str | None:
    """A UTC ``YYYY-MM-DDTHH:MI:SS`` text as the server's wall clock shows it."""
    if utc_text is None or not offset:
        return utc_text
    return (datetime.fromisoformat(utc_text) + offset).strftime("%Y-%m-%dT%H:%M:%S")


def _fetched(value: object, expression: str) -> object:
    """What python-oracledb returns for the snapshot's select ``expression`` of a column
    holding ``value`` (its truth): SYS_EXTRACT_UTC is naive; ``TO_CHAR`` under SYYYY puts a
    space before an AD year; ``||`` with a NULL side gives the other side (only two NULLs
    concatenate to NULL), unless NVL2 keeps the NULL."""
    if value is None:
        concatenated = " || '" in expression and not expression.startswith("NVL2(")
        return expression.rsplit(" || '", 1)[1].rstrip("'") if concatenated else None
    utc = expression.startswith("SYS_EXTRACT_UTC(")
    if utc and isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    if "'SYYYY-" in expression and isinstance(value, str):
        return f" {value}"
    return value


__all__ = ["SimConnection", "SimCursor", "UnknownStatementError"]


def _digest_of(table: TableDef, *, flag: bool) -> str:
    from extractor.verify.source_digest import digest_statement

    return digest_statement(table, flag)


_ROUND = re.compile(r"ROUND\(\"([^\"]+)\", (\d+)\)")


def _with_number_choices(table: TableDef, text: str) -> TableDef:
    """``table`` with the ``number_as`` choice each unbounded NUMBER / FLOAT column is read
    under in ``text``: ``ROUND("C", s)`` (verify of DECIMAL(38,s)), ``TO_BINARY_DOUBLE("C")``
    (verify of DOUBLE), or the column itself where the unchosen read is ``TO_CHAR`` (a
    snapshot reads both choices alike: the driver's Decimal, converted by the client)."""
    scales = {name: int(scale) for name, scale in _ROUND.findall(text)}
    columns = []
    for column in table.columns:
        quoted = queries.quote_identifier(column.name)
        landed_as = None
        if is_unbounded_number(column):
            if column.name in scales:
                landed_as = f"DECIMAL(38,{scales[column.name]})"
            else:
                as_text = queries.EXPR_NUMBER_TEXT.format(column=quoted) in text
                read_plain = f"TO_BINARY_DOUBLE({quoted})" in text or quoted in text
                landed_as = None if as_text or not read_plain else "DOUBLE"
        columns.append(dataclasses.replace(column, landed_as=landed_as))
    return dataclasses.replace(table, columns=tuple(columns))
