"""Telling apart tied readings by the row AS OF the commit (``as_of_resolution``)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from extractor.dictionary import TableDef
from extractor.nls import NlsSettings
from extractor.parse.as_of_resolution import resolve_by_row_as_of
from extractor.parse.literals import Literal
from extractor.parse.redo_statement import ParsedRedo
from tests.parse.two_strings_table import TWO_STRINGS

T = TWO_STRINGS
COMMIT_SCN = 500


def _update(new: Mapping[str, str], old: Mapping[str, str]) -> ParsedRedo:
    return ParsedRedo(
        "UPDATE",
        "APP",
        "T",
        {k: Literal(v) for k, v in new.items()},
        {k: Literal(v) for k, v in old.items()},
        "AAAA",
    )


FIRST = _update({"A": "'x'", "B": "'y'', \"B\" = ''z'"}, {"ID": "1", "A": "'a'"})
SECOND = _update({"A": "'x'', \"B\" = ''y'", "B": "'z'"}, {"ID": "1", "A": "'a'"})


class Rows:
    """The row by SCN; records what was read."""

    def __init__(self, after: dict[str, object] | None, before: dict[str, object] | None):
        self.by_scn = {COMMIT_SCN: after, COMMIT_SCN - 1: before}
        self.reads: list[int] = []

    def __call__(self, table: TableDef, row_id: str, scn: int) -> Mapping[str, object] | None:
        assert (table, row_id) == (T, "AAAA")
        self.reads.append(scn)
        return self.by_scn[scn]


def _resolve(readings: list[ParsedRedo], rows: Rows) -> ParsedRedo | str:
    return resolve_by_row_as_of(readings, T, NlsSettings(), "AAAA", COMMIT_SCN, rows)


def test_the_reading_the_committed_row_shows_is_chosen() -> None:
    after = {"ID": 1, "A": "x', \"B\" = 'y", "B": "z"}
    rows = Rows(after, {"ID": 1, "A": "a", "B": "b"})
    assert _resolve([FIRST, SECOND], rows) is SECOND
    assert rows.reads == [COMMIT_SCN]  # the old images agree: nothing to read before


def test_the_old_image_is_checked_against_the_row_before_the_commit() -> None:
    first = _update({"A": "'n'"}, {"ID": "1", "A": "'p'', \"B\" = ''q'"})
    second = _update({"A": "'n'"}, {"ID": "1", "A": "'p'", "B": "'q'"})
    second = ParsedRedo("UPDATE", "APP", "T", second.new, second.old, "AAAA")
    rows = Rows({"ID": 1, "A": "n", "B": "q"}, {"ID": 1, "A": "p", "B": "q"})
    assert _resolve([first, second], rows) is second
    assert rows.reads == [COMMIT_SCN - 1]


@pytest.mark.parametrize(
    ("after", "why"),
    [
        (None, "no row at ROWID AAAA AS OF SCN 500"),
        ({"ID": 1, "A": "other", "B": "z"}, "matches no reading"),
    ],
)
def test_what_the_row_does_not_settle_is_left_unresolved(
    after: dict[str, object] | None, why: str
) -> None:
    outcome = _resolve([FIRST, SECOND], Rows(after, None))
    assert isinstance(outcome, str) and why in outcome


def test_a_reading_whose_values_do_not_fit_is_dropped_and_the_other_still_checked() -> None:
    bad = _update({"ID": "'not a number'", "A": "'x'"}, {"ID": "1"})
    rows = Rows({"ID": 1, "A": "x', \"B\" = 'y", "B": "z"}, {"ID": 1, "A": "a"})
    assert _resolve([bad, SECOND], rows) is SECOND
    wrong = Rows({"ID": 1, "A": "x", "B": "z"}, None)
    assert isinstance(_resolve([bad, SECOND], wrong), str)  # alone, still confirmed or not
    before = {"ID": 1, "A": "a", "B": "b"}
    assert _resolve([bad, SECOND], Rows(rows.by_scn[COMMIT_SCN], before)) is SECOND
    other_before = {"ID": 1, "A": "not a", "B": "b"}  # its WHERE is checked too
    assert isinstance(_resolve([bad, SECOND], Rows(rows.by_scn[COMMIT_SCN], other_before)), str)
