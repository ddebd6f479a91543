"""A ``kind: sim`` source with a data directory keeps its database between processes.

Reproduces issue 19.5: each command used to rebuild the simulated database, so ``verify``
after the demo compared the replicas with another database.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from extractor.errors import SourceError
from extractor.sim.database import SimDatabase
from extractor.sim.saved_simulation import DATABASE_FILE, SavedSimulation
from extractor.sim.workload import WorkloadRunner, WorkloadSpec
from extractor.source.factory import SIM_DIRECTORY, open_source
from extractor.source.simulated_source import SimulatedSource

SETTINGS: dict[str, Any] = {"kind": "sim", "tables": 3, "seed": 5, "transactions": 40}


def _state(db: SimDatabase) -> tuple[object, ...]:
    """Everything a reader of the database can see: SCN, rows, open transactions, redo."""
    scn = db.current_scn()
    rows = [db.truth(t.owner, t.name, scn) for t in db.tables()]
    redo = [r.sql_redo for r in db.logminer_contents(0, scn)]
    return scn, rows, db.open_transactions(), redo


def _open(data_dir: Path, **settings: Any) -> SimulatedSource:
    source = open_source({**SETTINGS, **settings}, data_dir=data_dir)
    assert isinstance(source, SimulatedSource) and source.simulation is not None
    return source


# every workload feature whose state spans a save: DDL, row moves, key shifts, markers
EVERY_FEATURE: dict[str, Any] = {
    "truncate_ratio": 0.05, "row_move_ratio": 0.05, "key_shift_ratio": 0.3,
    "replication_marker_ratio": 0.05, "unsupported_ratio": 0.05,
    "add_column_at": 50, "drop_column_at": 70,
}  # fmt: skip


@pytest.mark.parametrize("features", [{}, EVERY_FEATURE], ids=["plain", "every-feature"])
def test_a_reopened_database_goes_on_as_if_never_closed(
    tmp_path: Path, features: dict[str, Any]
) -> None:
    source = _open(tmp_path, transactions_per_cycle=25, **features)
    assert source.advance_workload() == 25
    source.close()
    reopened = _open(tmp_path, transactions_per_cycle=25, **features)
    reopened.advance_workload()
    assert reopened.simulation is not None
    kept = reopened.simulation.database
    # the same workload in one process, never saved
    spec = WorkloadSpec(tables=3, seed=5, transactions=40, **features)
    runner = WorkloadRunner(SimDatabase(), spec)
    runner.run(40)
    runner.run(25)
    runner.run(25)
    assert _state(kept) == _state(runner.db)
    assert len(reopened.simulation.runner.open_xids) == len(runner.open_xids) > 0
    reopened.close()


def test_a_database_without_transactions_per_cycle_stays_as_it_is(tmp_path: Path) -> None:
    source = _open(tmp_path)
    assert source.simulation is not None
    before = _state(source.simulation.database)
    assert source.advance_workload() == 0
    source.close()
    again = _open(tmp_path)
    assert again.simulation is not None
    assert _state(again.simulation.database) == before
    again.close()


def test_each_step_of_the_workload_is_saved_before_anything_can_mine_it(tmp_path: Path) -> None:
    # a process that advances the workload and dies without closing (no save at close)
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from extractor.source.factory import open_source\n"
        f"source = open_source({dict(SETTINGS, transactions_per_cycle=30)!r}, "
        "data_dir=Path(sys.argv[1]))\n"
        "source.advance_workload()\n"
        "print(source.current_scn(), flush=True)\n"
        "os._exit(0)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, check=True
    )
    scn_mined_by_the_dead_process = int(run.stdout.strip())
    survivor = _open(tmp_path, transactions_per_cycle=30)  # its lock died with it
    assert survivor.current_scn() == scn_mined_by_the_dead_process
    survivor.close()


def test_a_second_process_is_refused_while_one_holds_the_database(tmp_path: Path) -> None:
    first = _open(tmp_path)
    with pytest.raises(SourceError, match="in use by another oracdc process") as refused:
        _open(tmp_path)
    assert refused.value.fix and "wait" in refused.value.fix
    first.close()
    _open(tmp_path).close()  # free again once the first one closed


def test_other_workload_settings_are_refused_with_the_way_out(tmp_path: Path) -> None:
    _open(tmp_path).close()
    with pytest.raises(SourceError, match=r"seed: 5 saved, 6 configured") as refused:
        _open(tmp_path, seed=6)
    assert refused.value.fix and f"delete the data directory {tmp_path}" in refused.value.fix
    _open(tmp_path, transactions_per_cycle=3).close()  # not a workload setting


def test_a_damaged_or_foreign_file_is_refused_with_the_way_out(tmp_path: Path) -> None:
    _open(tmp_path).close()
    saved = tmp_path / SIM_DIRECTORY / DATABASE_FILE
    saved.write_bytes(saved.read_bytes()[:100])
    with pytest.raises(SourceError, match="cannot read the simulated database") as damaged:
        _open(tmp_path)
    assert damaged.value.fix and "delete" in damaged.value.fix
    saved.write_bytes(pickle.dumps({"not": "a saved simulation"}))
    with pytest.raises(SourceError, match="saved by oracdc unknown"):
        _open(tmp_path)


def test_a_database_saved_by_another_version_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import extractor.sim.saved_simulation as saved_simulation

    monkeypatch.setattr(saved_simulation, "__version__", "0.0.1")
    _open(tmp_path).close()
    monkeypatch.undo()
    with pytest.raises(SourceError, match=r"saved by oracdc 0\.0\.1, this is"):
        _open(tmp_path)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"transactions_per_cycle": -1}, "transactions_per_cycle is -1"),
        ({"transactions_per_cycle": "200"}, "must be a whole number"),
        ({"transactions_per_cycle": True}, "must be a whole number"),
        ({"seeed": 1}, r"unknown key\(s\) under source for kind sim: seeed"),
    ],
)
def test_bad_settings_are_refused_in_one_line(
    tmp_path: Path, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(SourceError, match=message):
        _open(tmp_path, **settings)
    assert not (tmp_path / SIM_DIRECTORY / DATABASE_FILE).exists()


def test_transactions_per_cycle_needs_a_data_directory() -> None:
    with pytest.raises(SourceError, match="needs a data directory"):
        open_source({**SETTINGS, "transactions_per_cycle": 5})


def test_without_a_data_directory_the_database_lives_with_the_process() -> None:
    source = open_source(SETTINGS)
    assert isinstance(source, SimulatedSource) and source.simulation is None
    assert source.advance_workload() == 0
    source.close()


def test_a_closed_simulation_can_be_closed_again(tmp_path: Path) -> None:
    simulation = SavedSimulation.open(tmp_path / "sim", WorkloadSpec(tables=1, transactions=3))
    simulation.close()
    simulation.close()


def test_a_step_that_fails_half_way_is_not_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _open(tmp_path, transactions_per_cycle=50)
    assert source.simulation is not None
    before = _state(source.simulation.database)
    runner = source.simulation.runner
    statements = 0
    real_statement = runner._statement

    def interrupted(*args: Any) -> None:
        nonlocal statements
        statements += 1
        if statements == 30:
            raise KeyboardInterrupt
        real_statement(*args)

    monkeypatch.setattr(runner, "_statement", interrupted)
    with pytest.raises(KeyboardInterrupt):
        source.advance_workload()
    source.close()
    again = _open(tmp_path, transactions_per_cycle=50)
    assert again.simulation is not None
    assert _state(again.simulation.database) == before
    again.close()
