"""The memoised relaxed-quote search (extractor/parse/relaxed_quotes.py) gives what the
exhaustive reference search gives (tests/parse/relaxed_reference.py): the same reading, or the
same refusal, on statements whose apostrophes were not doubled."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from extractor.errors import RedoParseError
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.relaxed_quotes import parse_relaxed
from tests.parse import relaxed_reference

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from parse_bench import generate_statements


def _outcome(parse: object, sql: str, table: object) -> ParsedRedo | str:
    try:
        return parse(sql, table)  # type: ignore[operator, no-any-return]
    except RedoParseError as error:
        return f"{error.reason} at {error.position}"


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_the_memoised_search_reads_as_the_exhaustive_one(seed: int) -> None:
    table, texts = generate_statements(150, seed=seed)
    relaxed = [t.replace("''", "'") for t in texts if "''" in t]
    assert len(relaxed) > 100
    outcomes = {"reading": 0, "refused": 0}
    for sql in relaxed:
        ours = _outcome(parse_relaxed, sql, table)
        reference = _outcome(relaxed_reference.parse_relaxed, sql, table)
        if isinstance(reference, str) and reference.startswith("too many possible splits"):
            continue  # the exhaustive search gave up: it has no answer to compare with
        assert ours == reference, sql
        outcomes["reading" if isinstance(ours, ParsedRedo) else "refused"] += 1
    assert outcomes["reading"] > 100 and outcomes["refused"] > 0
