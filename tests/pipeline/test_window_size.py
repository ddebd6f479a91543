"""How the mining window adapts to the rows it returns."""

from __future__ import annotations

from extractor.assemble.window_miner import next_window_scns
from extractor.config import MiningSettings

MINING = MiningSettings(
    window_scns=1_000, min_window_scns=100, max_window_scns=8_000, target_rows_per_window=1_000
)


def test_a_window_over_the_target_halves_down_to_the_minimum() -> None:
    assert next_window_scns(1_000, 1_001, MINING) == 500
    assert next_window_scns(150, 5_000, MINING) == 100


def test_a_window_under_half_the_target_doubles_up_to_the_maximum() -> None:
    assert next_window_scns(1_000, 499, MINING) == 2_000
    assert next_window_scns(6_000, 0, MINING) == 8_000


def test_a_window_between_half_and_all_of_the_target_keeps_its_size() -> None:
    assert next_window_scns(1_000, 500, MINING) == 1_000
    assert next_window_scns(1_000, 1_000, MINING) == 1_000
