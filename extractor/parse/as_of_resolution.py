"""Telling apart the readings of an ambiguous SQL_REDO statement by the row AS OF its SCN.

An undoubled apostrophe can leave two or more readings of one statement with the same number
of columns (``AmbiguousRedoError.readings``). Oracle still holds the truth: the row, by its
ROWID, as of the transaction's commit SCN shows the values the statement wrote (INSERT,
UPDATE's SET), and as of the SCN before it the values the statement found (UPDATE's and
DELETE's WHERE). A reading is kept when every value it gives for a column on which the
readings disagree equals the row's; the statement is resolved when exactly one reading is
kept. A reading whose values do not fit their columns is not the statement; when it leaves a
single reading, that one is still checked against the row, on every column it carries.

That holds only when the statement is the transaction's only change of that ROWID (a later
change in the same transaction would show in the row at the commit SCN, an earlier one would
be missing from the row before it); the caller checks that. Typed values are compared in
the ``spark_types`` representation both sides use (``value_typing``, the snapshot reader).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from extractor.dictionary import TableDef
from extractor.errors import ValueTypingError
from extractor.nls import NlsSettings
from extractor.parse.literals import UnsupportedValue
from extractor.parse.redo_statement import ParsedRedo
from extractor.parse.value_typing import typed_row

# (table, ROWID, SCN) -> the row's values as of the SCN, None when no row is there.
RowAsOf = Callable[[TableDef, str, int], Mapping[str, object] | None]


def resolve_by_row_as_of(
    readings: Sequence[ParsedRedo],
    table: TableDef,
    nls: NlsSettings,
    row_id: str,
    commit_scn: int,
    row_as_of: RowAsOf,
) -> ParsedRedo | str:
    """The one reading the row confirms, or why none could be chosen."""
    typed: list[_Typed] = []
    for reading in readings:
        try:
            new, old = typed_row(reading, table, nls)
        except ValueTypingError:
            continue  # a reading whose values do not fit their columns is not the statement
        typed.append(_Typed(reading, (new, old)))
    if not typed:
        return "no reading's values fit their columns"
    kept = typed
    lone = len(typed) == 1  # nothing to tell it from: every column it carries is checked
    compared = False
    # the new image against the row at the commit SCN, the old one against the row before
    for image, scn in ((0, commit_scn), (1, commit_scn - 1)):
        if compared and len(kept) == 1 and not lone:
            break  # the row chose it among the readings
        disputed = _disputed_columns([entry.images[image] for entry in kept])
        if not disputed:
            continue
        row = row_as_of(table, row_id, scn)
        if row is None:
            return f"no row at ROWID {row_id} AS OF SCN {scn}"
        kept = [entry for entry in kept if _agrees(entry.images[image], row, disputed)]
        compared = True
    if len(kept) == 1:
        return kept[0].reading
    if not kept:
        return "the row AS OF its SCN matches no reading"
    return f"the row AS OF its SCN matches {len(kept)} readings"


class _Typed(NamedTuple):
    reading: ParsedRedo
    images: tuple[dict[str, object], dict[str, object]]  # new, old


def _disputed_columns(images: Sequence[Mapping[str, object]]) -> frozenset[str]:
    """Columns whose value (or presence) is not the same in every image; every column of
    a single image (the one reading whose values fit is still checked against the row)."""
    names = {name for image in images for name in image}
    if len(images) == 1:
        return frozenset(names)
    missing = object()
    return frozenset(
        name for name in names if len({_key(image.get(name, missing)) for image in images}) > 1
    )


def _key(value: object) -> object:
    return (type(value).__name__, repr(value))


def _agrees(
    image: Mapping[str, object], row: Mapping[str, object], columns: frozenset[str]
) -> bool:
    for name in columns:
        if name not in image:
            continue  # the reading does not carry it: nothing to check
        value = image[name]
        if isinstance(value, UnsupportedValue) or name not in row or row[name] != value:
            return False
    return True
