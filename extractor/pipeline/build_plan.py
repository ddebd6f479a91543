"""Which replicas a sync cycle builds: those whose staging tables changed, not all of them.

A replica is built (with everything downstream of it and the data tests of what is built)
when, since the last successful build that took it in (``consolidated.json``):

- its staging table received a batch (changes, a snapshot chunk or a reset marker);
- the table's columns changed in the dictionary (a DDL with no row change yet still changes
  the replica's columns);
- its model files (``models/replica/<model>.sql`` and ``.yml``) changed: regenerated, or
  edited by hand;
- no successful sync has built it yet;

and its table's snapshot is finished: a table waiting to be snapshotted again after the
cycle's retry (Oracle refused the read, ORA-01466, or it read short) may have part of its
new snapshot landed without the reset marker that retires the rows gone since, so its
replica, and what depends on it, keeps its last build until the snapshot is done.

A cycle with none of these runs no dbt at all. A full build (``path:models/replica+``: every
replica, every view, every test) runs when asked (``oracdc sync --all``) and every
``dbt.full_build_every`` cycles when that is set (docs/dbt.md, "What a sync cycle builds").
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from extractor.dbt_gen.project_files import REPLICA_DIR
from extractor.dictionary import TableDef
from extractor.staging_contract import replica_model_name
from extractor.state.consolidation_state import ConsolidatedBatch

# Every replica, what depends on it, and their tests.
FULL_BUILD_SELECTOR = "path:models/replica+"


@dataclass(frozen=True)
class BuildPlan:
    """The dbt selectors of one cycle's build (none: dbt does not run) and, per table built,
    why."""

    selectors: tuple[str, ...]
    reasons: dict[str, str]
    excluded: tuple[str, ...] = ()  # dbt --exclude: the waiting tables' replicas and downstream

    @property
    def full(self) -> bool:
        return self.selectors == (FULL_BUILD_SELECTOR,)


def plan_build(
    tables: Sequence[TableDef],
    landed: Mapping[str, int],
    consolidated: Mapping[str, ConsolidatedBatch],
    model_digests: Mapping[str, str],
    *,
    full_build_reason: str | None = None,
    waiting: Collection[str] = (),
) -> BuildPlan:
    """What to build for ``tables`` (the selected tables), given the last batch landed per
    table, what the last successful builds took in, and the digest of each table's model
    files now (``model_digest``). ``full_build_reason`` asks for a full build. Tables named
    in ``waiting`` (their snapshot is not finished) are not built, nor what depends on them."""
    if full_build_reason is not None:
        excluded = tuple(
            f"{replica_model_name(t.owner, t.name)}+" for t in tables if t.qualified_name in waiting
        )
        reasons = {
            t.qualified_name: full_build_reason for t in tables if t.qualified_name not in waiting
        }
        return BuildPlan((FULL_BUILD_SELECTOR,), reasons, excluded)
    reasons = {}
    for table in tables:
        if table.qualified_name in waiting:
            continue
        name = table.qualified_name
        reason = _why_build(table, landed, consolidated.get(name), model_digests.get(name, ""))
        if reason is not None:
            reasons[table.qualified_name] = reason
    selectors = tuple(
        f"{replica_model_name(t.owner, t.name)}+" for t in tables if t.qualified_name in reasons
    )
    return BuildPlan(selectors, reasons)


def columns_fingerprint(table: TableDef) -> str:
    """A short digest of the table's columns (names, types, sizes, order) and key."""
    text = repr(
        (
            [
                (c.name, c.data_type, c.data_length, c.data_precision, c.data_scale)
                for c in table.columns
            ],
            table.primary_key,
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def model_digest(project_dir: Path, table: TableDef) -> str:
    """A short digest of the replica's model files as they are now ("" when it has none)."""
    stem = project_dir / REPLICA_DIR / replica_model_name(table.owner, table.name)
    digest = hashlib.sha256()
    found = False
    for path in (stem.with_suffix(".sql"), stem.with_suffix(".yml")):
        try:
            digest.update(path.read_bytes())
            found = True
        except FileNotFoundError:
            pass
        digest.update(b"\0")
    return digest.hexdigest()[:16] if found else ""


def _why_build(
    table: TableDef, landed: Mapping[str, int], done: ConsolidatedBatch | None, model: str
) -> str | None:
    batch = landed.get(table.qualified_name, 0)
    if done is None:
        return "not built by a sync yet"
    if batch > done.batch_id:
        return f"new batches {done.batch_id + 1}..{batch}"
    if done.columns and done.columns != columns_fingerprint(table):
        return "columns changed in the dictionary"
    if done.model and done.model != model:
        return "model files changed"
    return None
