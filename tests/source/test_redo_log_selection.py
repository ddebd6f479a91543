"""Log selection per reference §2: dedupe, per-thread continuity, gaps are errors."""

from __future__ import annotations

import pytest

from extractor.errors import MissingRedoLogError
from extractor.source.oracle.redo_logs import RedoLog, RedoThread, select_logs


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
    assert "oracdc snapshot --force" in (caught.value.fix or "")


def test_purged_first_log_is_a_gap_at_the_start() -> None:
    with pytest.raises(MissingRedoLogError) as caught:
        select_logs([_log(11, 200, None)], 150, 250)
    assert (caught.value.first_scn, caught.value.last_scn) == (150, 199)


def test_closed_last_log_ending_before_the_range_end_is_a_gap() -> None:
    with pytest.raises(MissingRedoLogError):
        select_logs([_log(10, 100, 200)], 150, 250)


# -- RAC: every redo thread of V$THREAD ----------------------------------------------------


def _thread_log(thread: int, seq: int, first: int, nxt: int | None) -> RedoLog:
    return RedoLog(f"/arch/{thread}_{seq}.arc", thread, seq, first, nxt, nxt is None)


def _thread(
    thread: int, status: str = "OPEN", enabled: str = "PUBLIC", *, enable: int = 1,
    checkpoint: int = 0, disable: int = 0,
) -> RedoThread:  # fmt: skip
    return RedoThread(thread, status, enabled, enable, checkpoint, disable)


def test_an_open_thread_without_any_log_in_the_range_is_a_hole() -> None:
    logs = [_thread_log(1, 10, 100, None)]
    assert select_logs(logs, 150, 250) == logs  # without V$THREAD: thread 2 passes unseen
    with pytest.raises(MissingRedoLogError, match="redo thread 2") as caught:
        select_logs(logs, 150, 250, [_thread(1), _thread(2)])
    assert (caught.value.first_scn, caught.value.last_scn) == (150, 250)


def test_each_open_thread_must_cover_the_whole_range() -> None:
    logs = [_thread_log(1, 10, 100, None), _thread_log(2, 7, 180, None)]
    with pytest.raises(MissingRedoLogError, match="thread 2") as caught:
        select_logs(logs, 150, 250, [_thread(1), _thread(2)])
    assert (caught.value.first_scn, caught.value.last_scn) == (150, 179)


def test_a_closed_thread_must_cover_the_range_up_to_its_checkpoint_only() -> None:
    logs = [_thread_log(1, 10, 100, None), _thread_log(2, 7, 90, 200)]
    closed = _thread(2, "CLOSED", checkpoint=199)
    chosen = select_logs(logs, 150, 250, [_thread(1), closed])
    assert [(x.thread, x.sequence) for x in chosen] == [(1, 10), (2, 7)]
    with pytest.raises(MissingRedoLogError, match="thread 2"):
        select_logs(logs, 150, 250, [_thread(1), _thread(2, "CLOSED", checkpoint=220)])


def test_a_disabled_thread_must_cover_the_range_below_its_disable_scn_only() -> None:
    logs = [_thread_log(1, 10, 100, None), _thread_log(2, 7, 90, 200)]
    disabled = _thread(2, "CLOSED", "DISABLED", checkpoint=199, disable=200)
    assert len(select_logs(logs, 150, 250, [_thread(1), disabled])) == 2


def test_a_thread_closed_or_disabled_before_the_range_needs_no_log() -> None:
    logs = [_thread_log(1, 10, 100, None)]
    threads = [
        _thread(1),
        _thread(2, "CLOSED", checkpoint=120),
        _thread(3, "CLOSED", "DISABLED", checkpoint=90, disable=100),
    ]
    assert select_logs(logs, 150, 250, threads) == logs


def test_a_thread_enabled_inside_the_range_is_needed_from_its_enable_scn() -> None:
    logs = [_thread_log(1, 10, 100, None), _thread_log(2, 1, 200, None)]
    assert len(select_logs(logs, 150, 250, [_thread(1), _thread(2, enable=200)])) == 2
    with pytest.raises(MissingRedoLogError, match="thread 2"):
        select_logs(logs, 150, 250, [_thread(1), _thread(2, enable=190)])


def test_a_thread_v_thread_does_not_list_must_cover_the_whole_range() -> None:
    logs = [_thread_log(1, 10, 100, None), _thread_log(5, 3, 100, 200)]
    with pytest.raises(MissingRedoLogError, match="thread 5"):
        select_logs(logs, 150, 250, [_thread(1)])
