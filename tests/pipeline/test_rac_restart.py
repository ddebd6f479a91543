"""RAC: transactions of two instances commit at one SCN, and their commit positions (RS_ID:
log sequence, block, offset) belong to two redo threads whose log sequences do not compare.
The restart filter must not depend on that order: every commit at or below the last landed
commit's SCN was processed by the window that checkpoint covers (windows end on whole SCNs),
so a restart skips them all by SCN (docs/extraction.md, "Checkpoint and crashes")."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from tests.e2e.memory_staging import MemoryStagingWriter
from tests.pipeline.test_extract_to_staging import ITEMS, make_config


class Crash(Exception):
    """The process died at the fault point."""


def _cycle(
    config: object, db: SimDatabase, staging: MemoryStagingWriter, crash_at: str | None = None
) -> None:
    def fault(at: str) -> None:
        if at == crash_at:
            raise Crash(at)

    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=staging, fault=fault) as extractor:  # type: ignore[arg-type]
        extract_and_land(extractor, {})


def _landed_ids(staging: MemoryStagingWriter) -> list[int]:
    return sorted(int(row["id"]) for row in staging.staged_rows(ITEMS) if row["_op"] != "t")


def test_a_restart_lands_nothing_again_of_two_instances_commits_at_one_scn(
    tmp_path: Path,
) -> None:
    db = SimDatabase(threads=2)
    db.create_table(ITEMS)
    for _ in range(3):
        db.switch_log(thread=1)  # thread 1's log sequences run ahead of thread 2's
    config = make_config(tmp_path, "rac_restart")
    staging = MemoryStagingWriter(config.staging_schema)
    _cycle(config, db, staging)  # snapshot (empty table), handover

    pinning = db.begin(instance=1)  # open across the crash: resume_scn stays below the pair
    pinning.insert("APP", "ITEMS", {"ID": 1, "NAME": "open"})
    first, second = db.begin(instance=1), db.begin(instance=2)
    first.insert("APP", "ITEMS", {"ID": 10, "NAME": "thread 1"})
    second.insert("APP", "ITEMS", {"ID": 20, "NAME": "thread 2"})
    # LogMiner order: thread 1's commit (higher log sequence) first, thread 2's last.
    db.commit_at_one_scn([first, second])

    with pytest.raises(Crash):
        _cycle(config, db, staging, crash_at="stream:after_checkpoint")
    assert _landed_ids(staging) == [10, 20]
    _cycle(config, db, staging)  # the new process re-mines from below the pair
    assert _landed_ids(staging) == [10, 20]  # thread 1's commit landed once

    pinning.commit()
    _cycle(config, db, staging)
    assert _landed_ids(staging) == [1, 10, 20]
