"""Database-wide settings of the simulated Oracle that the pre-flight checks read.

Defaults are a database ready for capture: 19c, ARCHIVELOG, minimal supplemental logging,
not multitenant, every grant given, unlimited TEMP space.

Multitenant (``cdb = True``): the simulated tables live in the pluggable database
``pdb_name``; a new connection opens in ``container_name`` (the PDB, or ``CDB$ROOT`` for a
connection to the root's service) and ``ALTER SESSION SET CONTAINER`` moves it. A root
session's V$ / GV$ views (V$LOGMNR_CONTENTS, GV$TRANSACTION, V$PDBS) show the PDBs' rows only
when the user's ``CONTAINER_DATA`` covers them (``container_data_all``; Oracle's default for
a common user is the root alone). Then V$LOGMNR_CONTENTS holds every container's rows, each
with its SRC_CON_NAME (the PDB's all carry ``pdb_name``); with ``clone_pdb`` set, a clone of
the PDB (same owners, tables and object numbers, as a PDB cloned from it has) replays each
of its transactions ``clone_lag_scns`` later under other XIDs, rows a root session must
filter out. Tests change them to see each check
fail. ``revoked`` holds what the capture user lacks: view names as selected (``"V$LOG"``,
``"V$LOGMNR_CONTENTS"``, ``"DBA_EXTENTS"``), ``"LOGMINING"``, ``"DBMS_LOGMNR"``, and
``"FLASHBACK"`` (every table) or ``"FLASHBACK OWNER.TABLE"``. Only the pre-flight probes and
the extent list consult ``revoked``; the statements of capture itself run as if everything
were granted. ``temp_sort_limit_rows`` fails a snapshot query that sorts more rows with
ORA-01652, as a TEMP tablespace too small for the table would.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The system privileges a capture user holds (SESSION_PRIVS) when nothing is revoked.
GRANTED_PRIVILEGES = ("CREATE SESSION", "LOGMINING", "SELECT ANY TRANSACTION")


@dataclass
class SimServerSettings:
    version: str = "19.3.0.0.0"
    log_mode: str = "ARCHIVELOG"
    supplemental_log_data_min: str = "YES"
    cdb: bool = False
    container_name: str = "ORCLPDB1"  # where a new connection opens (CON_NAME)
    pdb_name: str = "ORCLPDB1"  # the pluggable database holding the tables
    container_data_all: bool = False
    clone_pdb: str | None = None
    clone_lag_scns: int = 40
    revoked: set[str] = field(default_factory=set)
    # TEMP space: a query that sorts more rows fails with ORA-01652 (None: unlimited).
    temp_sort_limit_rows: int | None = None
    force_logging: str = "YES"  # V$DATABASE.FORCE_LOGGING
    # "OWNER.TABLE" -> its segments marked NOLOGGING, as NOLOGGING_SEGMENTS names them
    nologging: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def session_privileges(self) -> list[str]:
        return [p for p in GRANTED_PRIVILEGES if p not in self.revoked]

    def may_read_table(self, qualified_name: str) -> bool:
        return not ({"FLASHBACK", f"FLASHBACK {qualified_name}"} & self.revoked)
