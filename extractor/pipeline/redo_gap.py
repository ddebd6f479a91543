"""``snapshot_mode: when_needed``: whether snapshotting every streamed table again gets the
pipeline past a redo gap (``MissingRedoLogError``), decided before anything is marked.

A new snapshot helps only when the redo from its handover on exists: mining restarts at the
oldest transaction open at the new snapshot SCN, and a transaction that began inside the gap
and is still open (or a log missing above the handover, a RAC thread's logs on a destination
this database does not list) leaves the handover inside missing redo too. That is checked on
the redo log catalog first (``OracleSource.check_redo_available``), so a gap a snapshot cannot
cure is reported at once instead of snapshotting every table again and again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from extractor.config import OracdcConfig
from extractor.dictionary import TableDef
from extractor.errors import MissingRedoLogError
from extractor.source.base import Source
from extractor.state.checkpoint import Checkpoint

LOG = logging.getLogger(__name__)


def streamed_tables(
    config: OracdcConfig, checkpoint: Checkpoint, tables: Sequence[TableDef]
) -> list[TableDef]:
    """The tables mining serves: started (snapshot done or running) and not ``initial_only``."""
    modes = config.snapshot_modes
    started = []
    for table in tables:
        state = checkpoint.tables.get(table.qualified_name)
        if (
            state is not None
            and state.status != "pending"
            and modes.streams(table.owner, table.name)
        ):
            started.append(table)
    return started


def tables_to_snapshot_again(
    gap: MissingRedoLogError,
    config: OracdcConfig,
    source: Source,
    streamed: Sequence[TableDef],
    *,
    tried_already: bool,
) -> list[TableDef]:
    """The tables to snapshot again after ``gap``; raises (``gap``, or a MissingRedoLogError
    saying why a snapshot would not help) when they must not be."""
    modes = config.snapshot_modes
    others = [t.qualified_name for t in streamed if modes.mode_of(t.owner, t.name) != "when_needed"]
    if not streamed or others:
        if others and len(others) < len(streamed):
            LOG.info("no snapshot after the redo gap: %s not when_needed", ", ".join(others))
        raise gap
    if tried_already:
        raise MissingRedoLogError(
            gap.first_scn, gap.last_scn,
            f"{gap.detail}; every table was snapshotted again and mining still meets missing "
            "redo",
        ) from gap  # fmt: skip
    point = source.snapshot_point(streamed)
    check = getattr(source, "check_redo_available", None)
    if check is not None:
        try:
            check(point.mining_start_scn, source.minable_scn())
        except MissingRedoLogError as still:
            raise MissingRedoLogError(
                gap.first_scn, gap.last_scn,
                f"{gap.detail}; a new snapshot would not get past it: mining would restart at "
                f"SCN {point.mining_start_scn} (the oldest transaction open now) and "
                f"{still.detail} (end that transaction, or restore the logs)",
            ) from gap  # fmt: skip
    LOG.warning(
        "redo gap (%s): every streamed table is snapshotted again (snapshot_mode when_needed)",
        gap.detail,
    )
    return list(streamed)
