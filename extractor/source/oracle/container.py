"""Where LogMiner runs on a multitenant database, decided once per source from the session's
container (``V$DATABASE.CDB``, ``SYS_CONTEXT('USERENV', 'CON_NAME')``), the server release
and the configured ``source.pdb`` (docs/sources.md, "Multitenant"):

- a non-CDB database: LogMiner over the added logs, as always;
- a session in a pluggable database (19c and later): per-PDB mining: START_LOGMNR with the
  SCN range picks the logs itself (ADD_LOGFILE is refused there: ORA-65040), and the view
  shows that PDB's rows only. Before 19c LogMiner runs in CDB$ROOT only;
- a session in CDB$ROOT with ``source.pdb``: the logs are added in the root, the view holds
  every container's rows and is filtered by SRC_CON_NAME, and the dictionary and snapshot
  reads run on a second connection switched into the PDB (``ALTER SESSION SET CONTAINER``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from extractor.config import validate_oracle_name
from extractor.errors import SourceError
from extractor.source.oracle import queries
from extractor.source.oracle.driver_errors import error_message, full_code

ROOT = "CDB$ROOT"
# The first release whose LogMiner mines one PDB from inside it (START_LOGMNR, no logs).
PER_PDB_MINING_RELEASE = (19, 0)


@dataclass(frozen=True)
class Container:
    """The session's container: ``cdb`` False on a non-CDB database (``name`` is then the
    database's CON_NAME and means nothing)."""

    cdb: bool
    name: str

    @property
    def in_root(self) -> bool:
        return self.cdb and self.name == ROOT


@dataclass(frozen=True)
class MiningScope:
    """How a LogMiner session is run: ``add_logs`` False mines one PDB from inside it;
    ``pdb`` set filters a root session's rows to that PDB (its SRC_CON_NAME) and names the
    container of the catalog connection."""

    add_logs: bool = True
    pdb: str | None = None

    @property
    def in_pdb(self) -> bool:
        """The tables are in a pluggable database (of a multitenant database)."""
        return self.pdb is not None or not self.add_logs

    def describe(self) -> str:
        if not self.add_logs:
            return "per-PDB mining (START_LOGMNR picks the logs)"
        if self.pdb is not None:
            return f"mining in CDB$ROOT, rows of PDB {self.pdb} (SRC_CON_NAME)"
        return "mining the added redo logs"


WHOLE_DATABASE = MiningScope()


def read_container(connection: Any) -> Container:
    """The session's container; a release without V$DATABASE.CDB (before 12.1: ORA-00904)
    is not multitenant."""
    cursor = connection.cursor()
    try:
        cursor.execute(queries.CONTAINER_INFO)
        cdb, name = cursor.fetchone()
    except Exception as error:
        code = full_code(error)
        if code is None:
            raise
        if code == "ORA-00904":
            return Container(cdb=False, name="")
        raise SourceError(
            f"cannot read the session's container from V$DATABASE ({code}): {error_message(error)}",
            fix="GRANT SELECT ON V_$DATABASE TO <capture user>; (SELECT_CATALOG_ROLE covers it)",
        ) from None
    finally:
        cursor.close()
    return Container(cdb=str(cdb) == "YES", name=str(name))


def mining_scope(container: Container, version: str | None, pdb: str | None) -> MiningScope:
    """The scope for a session in ``container`` of a server at ``version`` with
    ``source.pdb`` = ``pdb``; SourceError with the fix when capture cannot run there."""
    wanted = None if pdb is None else pdb.upper()
    if not container.cdb:
        if wanted is not None:
            raise SourceError(
                f"source.pdb is {wanted}, but the database is not a multitenant container "
                "database (V$DATABASE.CDB = NO)",
                fix="remove source.pdb from oracdc.yml",
            )
        return WHOLE_DATABASE
    if container.in_root:
        if wanted is None:
            raise SourceError(
                "connected to CDB$ROOT of a multitenant database without source.pdb: the "
                "tables to replicate live in a pluggable database",
                fix="set source.pdb to the PDB that holds the tables (SELECT NAME FROM V$PDBS), "
                "or connect to that PDB's service on Oracle 19c or later",
            )
        return MiningScope(add_logs=True, pdb=wanted)
    if wanted is not None and wanted != container.name:
        raise SourceError(
            f"connected to pluggable database {container.name}, but source.pdb is {wanted}",
            fix=f"connect to the CDB root's service to mine {wanted} from CDB$ROOT, or to "
            f"{wanted}'s own service without source.pdb",
        )
    if server_release(version) < PER_PDB_MINING_RELEASE:
        raise SourceError(
            f"connected to pluggable database {container.name} of Oracle {version}: before "
            "19c LogMiner runs only in CDB$ROOT (ORA-65040 inside a PDB)",
            fix=f"connect to the CDB root's service as a common user (C##...) with "
            f"source.pdb: {container.name}",
        )
    return MiningScope(add_logs=False)


def enter_pdb(connection: Any, pdb: str) -> None:
    """Switch ``connection`` into ``pdb`` (a root session's catalog connection)."""
    name = validate_oracle_name(pdb, "source.pdb").upper()  # written into the statement
    cursor = connection.cursor()
    try:
        cursor.execute(queries.SET_CONTAINER.format(container=name))
    except Exception as error:
        code = full_code(error)
        if code is None:
            raise
        raise SourceError(
            f"cannot switch into pluggable database {pdb} ({code}): {error_message(error)}",
            fix=f"check source.pdb (SELECT NAME FROM V$PDBS) and that the capture user is a "
            f"common user with GRANT SET CONTAINER TO <user> CONTAINER=ALL; and {pdb} open",
        ) from None
    finally:
        cursor.close()


def server_release(version: str | None) -> tuple[int, int]:
    """(major, minor) of a version string; (0, 0) when unreadable (the driver always gives
    it; a server that does not is treated as too old for per-PDB mining)."""
    try:
        parts = str(version).split(".")
        return int(parts[0]), int(parts[1])
    except (ValueError, IndexError):
        return (0, 0)
