"""Log selection per reference §2: dedupe, per-thread continuity, gaps are errors."""

from __future__ import annotations

import pytest

from extractor.source.errors import MissingRedoLogError
from extractor.source.oracle.redo_logs import RedoLog, select_logs


def _log(seq: int, first: int, nxt: int | None, online: bool = False) -> RedoLog:
    return RedoLog(f"/arch/1_{seq}.arc", 1, seq, first, nxt, online)


def test_contiguous_logs_covering_the_range_are_all_chosen_in_order() -> None:
    logs = [_log(11, 200, None, online=True), _log(10, 100, 200)]
    assert [x.sequence for x in select_logs(logs, 150, 250)] == [10, 11]


def test_archived_copy_wins_over_the_online_log_of_the_same_sequence() -> None:
    logs = [_log(10, 100, 200, online=True), _log(10, 100, 200, online=False)]
    (chosen,) = select_logs(logs, 100, 150)
    assert not chosen.online


def test_logs_outside_the_range_are_left_out() -> None:
    logs = [_log(9, 50, 100), _log(10, 100, 200), _log(11, 200, 300)]
    assert [x.sequence for x in select_logs(logs, 120, 180)] == [10]


def test_missing_log_in_the_middle_names_the_lost_scns() -> None:
    logs = [_log(10, 100, 200), _log(12, 300, None)]
    with pytest.raises(MissingRedoLogError) as caught:
        select_logs(logs, 150, 350)
    assert (caught.value.first_scn, caught.value.last_scn) == (200, 299)
    assert "re-snapshot" in (caught.value.fix or "")


def test_purged_first_log_is_a_gap_at_the_start() -> None:
    with pytest.raises(MissingRedoLogError) as caught:
        select_logs([_log(11, 200, None)], 150, 250)
    assert (caught.value.first_scn, caught.value.last_scn) == (150, 199)


def test_closed_last_log_ending_before_the_range_end_is_a_gap() -> None:
    with pytest.raises(MissingRedoLogError):
        select_logs([_log(10, 100, 200)], 150, 250)
