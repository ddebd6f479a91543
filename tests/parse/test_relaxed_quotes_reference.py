"""The relaxed-quote search (extractor/parse/relaxed_quotes.py) on statements whose
apostrophes were undoubled from well-formed ones, so that the right reading is known: the
strict parse of the original. Every reading it returns is that one; it decides every
statement the exhaustive reference search (tests/parse/relaxed_reference.py, the first
implementation) decided, the same way; and with the table's dictionary, preferring the split
with the most columns, it refuses fewer."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from extractor.errors import RedoParseError
from extractor.parse import parse_redo
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.relaxed_quotes import parse_relaxed
from tests.parse import relaxed_reference

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from parse_bench import generate_statements


def _outcome(parse: object, sql: str, table: object) -> ParsedRedo | str:
    try:
        return parse(sql, table)  # type: ignore[operator, no-any-return]
    except RedoParseError as error:
        return error.reason


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_every_recovery_is_the_original_and_refusals_only_shrink(seed: int) -> None:
    table, texts = generate_statements(150, seed=seed)
    pairs = [(t, t.replace("''", "'")) for t in texts if "''" in t]
    assert len(pairs) > 100
    counts = {"both": 0, "only ours": 0, "reference only": 0, "neither": 0}
    for original, relaxed in pairs:
        truth = replace(parse_redo(original), recovered_quotes=True)
        ours = _outcome(parse_relaxed, relaxed, table)
        reference = _outcome(relaxed_reference.parse_relaxed, relaxed, table)
        if isinstance(ours, ParsedRedo):
            assert ours == truth, relaxed
        if isinstance(reference, ParsedRedo):
            assert ours == reference, relaxed
        key = {
            (True, True): "both",
            (True, False): "only ours",
            (False, True): "reference only",
            (False, False): "neither",
        }[(isinstance(ours, ParsedRedo), isinstance(reference, ParsedRedo))]
        counts[key] += 1
    assert counts["reference only"] == 0
    assert counts["both"] > 100 and counts["only ours"] > 0, counts
