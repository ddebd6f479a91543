"""CSF continuation chains: pieces sharing RS_ID and SSN, CSF=1 until the last (CSF=0)."""

from __future__ import annotations

import pytest

from extractor.assemble import (
    BrokenContinuationError,
    ContinuationJoiner,
    IncompleteContinuationError,
    join_continuations,
)
from extractor.logminer_row import LogMinerRow

from .rows import XID_A, XID_B, commit, insert, row

PIECE_1 = 'insert into "SCOTT"."EMP"("EMPNO","NOTES") values (\'1\',\'' + "a" * 3970
PIECE_2 = "b" * 4000
PIECE_3 = "c');"


def piece(text: str, *, csf: int, scn: int = 100, ssn: int = 3) -> LogMinerRow:
    return row(1, XID_A, scn, block=0x271, ssn=ssn, csf=csf, sql_redo=text)


def test_two_pieces_join_into_one_row_with_the_concatenated_sql_redo() -> None:
    rows = [piece(PIECE_1, csf=1), piece(PIECE_3, csf=0)]

    joined = list(join_continuations(rows))

    assert [r.sql_redo for r in joined] == [PIECE_1 + PIECE_3]
    assert joined[0].csf == 0


def test_three_pieces_join_in_order() -> None:
    rows = [piece(PIECE_1, csf=1), piece(PIECE_2, csf=1), piece(PIECE_3, csf=0)]

    joined = list(join_continuations(rows))

    assert [r.sql_redo for r in joined] == [PIECE_1 + PIECE_2 + PIECE_3]


def test_joined_row_keeps_the_identity_of_the_chain() -> None:
    rows = [piece(PIECE_1, csf=1), piece(PIECE_3, csf=0)]

    (joined,) = join_continuations(rows)

    assert (joined.xid, joined.scn, joined.rs_id, joined.ssn) == (
        XID_A,
        100,
        " 0x000c5d.00000271.0010 ",
        3,
    )


def test_rows_without_continuation_pass_through_unchanged() -> None:
    rows = [insert(XID_A, 100, 1), insert(XID_B, 101, 2)]

    assert list(join_continuations(rows)) == rows


def test_chain_cut_off_at_the_end_of_the_window_is_an_error_naming_its_scn() -> None:
    rows = [insert(XID_B, 99, 7), piece(PIECE_1, csf=1, scn=100)]

    with pytest.raises(IncompleteContinuationError) as caught:
        list(join_continuations(rows))

    assert caught.value.scn == 100
    assert caught.value.xid == XID_A


def test_chain_interrupted_by_another_redo_record_is_an_error() -> None:
    rows = [piece(PIECE_1, csf=1), insert(XID_B, 100, 2)]

    with pytest.raises(BrokenContinuationError):
        list(join_continuations(rows))


def test_holding_a_cut_off_chain_reports_its_scn_as_the_resume_point() -> None:
    joiner = ContinuationJoiner(hold_incomplete=True)
    rows = [insert(XID_B, 99, 7), piece(PIECE_1, csf=1, scn=100)]

    yielded = list(joiner.join(rows))

    assert [r.scn for r in yielded] == [99]
    assert joiner.resume_scn == 100


def test_holding_a_cut_off_chain_also_holds_earlier_rows_of_the_same_scn() -> None:
    # Re-mining starts at SCN 100, which re-delivers the insert: it must not be yielded twice.
    joiner = ContinuationJoiner(hold_incomplete=True)
    rows = [insert(XID_B, 99, 7), insert(XID_B, 100, 8), piece(PIECE_1, csf=1, scn=100)]

    yielded = list(joiner.join(rows))

    assert [r.scn for r in yielded] == [99]
    assert joiner.held_rows == 2


def test_holding_mode_yields_everything_when_no_chain_is_cut() -> None:
    joiner = ContinuationJoiner(hold_incomplete=True)
    rows = [insert(XID_B, 99, 7), insert(XID_B, 100, 8), commit(XID_B, 100)]

    assert list(joiner.join(rows)) == rows
    assert joiner.resume_scn is None
