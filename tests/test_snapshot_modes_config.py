"""``snapshot_mode`` / ``snapshot_modes`` and ``heartbeat_interval_seconds`` in oracdc.yml, and what
verify makes of the snapshot modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.cli.verify import replicated_scn, verification_scn
from extractor.config import load_config
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError
from extractor.state.checkpoint import Checkpoint, TableSnapshotState
from tests.test_config import MINIMAL, write

SIM = "source: {kind: sim}\ntables: [HR.EMPLOYEES, 'SALES.*']\n"


def test_modes_load_with_the_first_matching_entry_winning(tmp_path: Path) -> None:
    text = (
        SIM
        + "snapshot_mode: when_needed\n"
        + "snapshot_modes: {SALES.EVENTS: no_data, 'SALES.*': initial_only}\n"
    )
    modes = load_config(write(tmp_path, text)).snapshot_modes
    assert modes.mode_of("SALES", "EVENTS") == "no_data"
    assert modes.mode_of("sales", "orders") == "initial_only"
    assert modes.mode_of("HR", "EMPLOYEES") == "when_needed"
    assert not modes.streams("SALES", "ORDERS") and modes.streams("SALES", "EVENTS")


def test_the_default_is_initial(tmp_path: Path) -> None:
    assert load_config(write(tmp_path, SIM)).snapshot_modes.mode_of("HR", "EMPLOYEES") == "initial"


@pytest.mark.parametrize(
    ("text", "message", "fix"),
    [
        (
            SIM + "snapshot_mode: never\n",
            "snapshot_mode: 'never' is not a snapshot mode",
            "no_data (stream from now)",
        ),
        (SIM + "snapshot_modes: [no_data]\n", "snapshot_modes must map OWNER.TABLE", "e.g."),
        (SIM + "snapshot_modes: {SALES: no_data}\n", "entry 'SALES' is not OWNER.TABLE", None),
        (
            SIM + "snapshot_modes: {SALES.X: later}\n",
            "snapshot_modes.SALES.X: 'later'",
            "initial_only",
        ),
        (
            SIM + "snapshot_modes: {HR.JOBS: no_data}\n",
            "snapshot_modes entry HR.JOBS names a table that tables does not select",
            "add HR.JOBS",
        ),
        (
            MINIMAL + "snapshot_mode: when_needed\n",
            "when_needed needs a source that can snapshot again",
            "initial",
        ),
        (
            MINIMAL + "snapshot_modes: {HR.EMPLOYEES: when_needed}\n",
            "a replay bundle holds one snapshot",
            None,
        ),
    ],
)
def test_a_bad_mode_is_refused_in_one_line_with_the_fix(
    tmp_path: Path, text: str, message: str, fix: str | None
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(write(tmp_path, text))
    assert message in str(raised.value) and "\n" not in str(raised.value)
    if fix is not None:
        assert fix in (raised.value.fix or "")


T = TableDef("HR", "EMPLOYEES", (ColumnDef("ID", 1, "NUMBER"),), ("ID",))


def test_verify_skips_a_no_data_table_and_takes_an_initial_only_one_at_its_snapshot(
    tmp_path: Path,
) -> None:
    no_data = Checkpoint(mined_to_scn=500, tables={"HR.EMPLOYEES": TableSnapshotState(
        "done", snapshot_scn=100, no_data=True)})  # fmt: skip
    config = load_config(write(tmp_path, SIM))
    at, note = verification_scn(config, no_data, T, 500)
    assert at is None and "since SCN 100" in note
    only = Checkpoint(mined_to_scn=500, tables={"HR.EMPLOYEES": TableSnapshotState(
        "done", snapshot_scn=100)})  # fmt: skip
    assert verification_scn(config, only, T, 500) == (500, "")
    config = load_config(write(tmp_path, SIM + "snapshot_mode: initial_only\n"))
    assert verification_scn(config, only, T, 500) == (100, "")


def test_the_replicas_scn_before_anything_was_mined_is_the_latest_snapshot() -> None:
    states = {"A.B": TableSnapshotState("done", snapshot_scn=7),
              "A.C": TableSnapshotState("done", snapshot_scn=9),
              "A.D": TableSnapshotState("running", snapshot_scn=12)}  # fmt: skip
    assert replicated_scn(Checkpoint(tables=states)) == 9
    assert replicated_scn(Checkpoint(mined_to_scn=20, tables=states)) == 20
    assert replicated_scn(Checkpoint()) is None


def test_a_checkpoint_keeps_the_mode_flags_and_writes_them_only_when_set() -> None:
    for state in (TableSnapshotState("done", snapshot_scn=5, no_data=True),
                  TableSnapshotState("done", snapshot_scn=5, initial_only=True)):  # fmt: skip
        assert TableSnapshotState.from_json(state.to_json()) == state
    old = TableSnapshotState("done", snapshot_scn=5).to_json()
    assert "no_data" not in old
    assert TableSnapshotState.from_json(old).no_data is False


@pytest.mark.parametrize("value", ["-1", "soon", "true"])
def test_a_bad_heartbeat_interval_is_refused(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match="heartbeat_interval_seconds must be a non-negative"):
        load_config(write(tmp_path, SIM + f"heartbeat_interval_seconds: {value}\n"))


def test_the_heartbeat_interval_defaults_to_five_minutes_and_0_turns_it_off(
    tmp_path: Path,
) -> None:
    assert load_config(write(tmp_path, SIM)).heartbeat_interval_seconds == 300
    off = load_config(write(tmp_path, SIM + "heartbeat_interval_seconds: 0\n"))
    assert off.heartbeat_interval_seconds == 0
