"""The one redo / commit position type (extractor/redo_position.py)."""

from __future__ import annotations

import pytest

from extractor.redo_position import CommitPosition, RedoPosition


def test_an_rs_id_parses_with_its_padding() -> None:
    assert RedoPosition.of(" 0x000c5d.00000271.0010 ", 3) == RedoPosition(0xC5D, 0x271, 0x10, 3)
    with pytest.raises(ValueError, match="not of the form"):
        RedoPosition.of("0x0c5d.0271", 0)


@pytest.mark.parametrize(
    ("low", "high"),
    [
        (RedoPosition(1, 9, 9, 9), RedoPosition(2, 0, 0, 0)),
        (RedoPosition(1, 2, 0xFFFF, 9), RedoPosition(1, 3, 0, 0)),
        (RedoPosition(1, 2, 3, 2**32 - 1), RedoPosition(1, 2, 4, 0)),
        (RedoPosition(0, 0, 0, 0), RedoPosition(2**32 - 1, 2**32 - 1, 0xFFFF, 2**32 - 1)),
    ],
)
def test_packing_keeps_the_order_and_unpacks(low: RedoPosition, high: RedoPosition) -> None:
    assert low < high and low.packed() < high.packed()
    assert RedoPosition.unpacked(low.packed()) == low
    assert RedoPosition.unpacked(high.packed()) == high


def test_a_field_wider_than_its_bits_is_refused() -> None:
    with pytest.raises(ValueError, match="out of range"):
        RedoPosition(1, 2, 2**16, 0).packed()


def test_a_commit_position_round_trips_through_json_as_text() -> None:
    position = CommitPosition(1_200, RedoPosition(0xC5D, 0x271, 0x10, 5))
    document = position.to_json()
    assert document == {
        "commit_scn": 1_200,
        "redo_pos": str((0xC5D << 80) | (0x271 << 48) | (0x10 << 32) | 5),
    }
    assert CommitPosition.from_json(document) == position
    with pytest.raises(TypeError):
        CommitPosition.from_json({"commit_scn": "1200", "redo_pos": "0"})


def test_after_scn_is_above_every_commit_of_that_scn_and_below_the_next() -> None:
    top = RedoPosition(2**32 - 1, 2**32 - 1, 0xFFFF, 2**32 - 1)
    assert CommitPosition(180, top) < CommitPosition.after_scn(180)
    assert CommitPosition.after_scn(180) < CommitPosition(181, RedoPosition(0, 0, 0, 0))
