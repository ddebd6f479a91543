"""The pre-flight checks of the configured source, for ``oracdc check`` and the start of
``oracdc sync`` (the checks themselves: :mod:`extractor.source.oracle.preflight`)."""

from __future__ import annotations

import logging

from extractor.config import OracdcConfig
from extractor.errors import PreflightError
from extractor.pipeline.table_registry import TableRegistry
from extractor.source.base import Source
from extractor.source.oracle.oracle_source import OracleSource
from extractor.source.oracle.preflight import CheckOutcome, failed, run_checks

LOG = logging.getLogger(__name__)

# How the fix texts name the capture user when the configuration does not (the simulator).
_UNNAMED_USER = "<capture user>"
_MISSING_TABLE_FIX = (
    "check the name in oracdc.yml; a replicated table that was dropped is left out until it "
    "exists again (take it out of `tables` if it is gone for good)"
)


def source_checks(config: OracdcConfig, source: Source) -> list[CheckOutcome] | None:
    """Every check of an Oracle source (real or simulated); None for a replay bundle, whose
    recorded rows need no database settings or grants."""
    if not isinstance(source, OracleSource):
        return None
    registry = TableRegistry(source, config.tables, config.columns)
    tables = registry.resolve()
    user = str(config.source.get("user") or _UNNAMED_USER)
    outcomes = run_checks(
        source.connection,
        user,
        tables,
        source.current_scn(),
        catalog_connection=source.catalog_connection,
        pdb=config.source.get("pdb"),
    )
    missing = [
        CheckOutcome("table list", "warning", str(error), fix=_MISSING_TABLE_FIX)
        for error in registry.missing.values()
    ]
    return outcomes + missing


def require_ready(config: OracdcConfig, source: Source) -> None:
    """Raise :class:`PreflightError` on the first failed check; log the warnings."""
    outcomes = source_checks(config, source)
    if outcomes is None:
        return
    for outcome in outcomes:
        if outcome.status == "warning":
            LOG.warning("pre-flight %s: %s", outcome.name, outcome.found)
    problems = failed(outcomes)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise PreflightError(
            f"pre-flight check {first.name} failed: {first.found}{more}",
            fix=f"{first.fix or 'see the Oracle error'}; `oracdc check` lists every check",
        )
