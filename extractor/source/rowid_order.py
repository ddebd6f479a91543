"""Oracle's ROWID order, for sources that must sort rows the way ``ORDER BY ROWID`` does.

An extended ROWID ``OOOOOOFFFBBBBBBRRR`` is four numbers (data object, relative file, block,
row slot) written in Oracle's base64 alphabet ``A-Z a-z 0-9 + /``; that alphabet is not in
ASCII order, so ROWID texts cannot be compared as strings.
"""

from __future__ import annotations

from extractor.errors import InvalidRowidError

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DIGIT = {ch: i for i, ch in enumerate(_ALPHABET)}
_WIDTHS = (6, 3, 6, 3)


def rowid_sort_key(rowid: str) -> tuple[int, int, int, int]:
    """(data object, file, block, row) of a ROWID: compares as ``ORDER BY ROWID`` orders."""
    if len(rowid) != 18 or any(ch not in _DIGIT for ch in rowid):
        raise InvalidRowidError(f"{rowid!r} is not an 18-character extended ROWID")
    parts: list[int] = []
    start = 0
    for width in _WIDTHS:
        value = 0
        for ch in rowid[start : start + width]:
            value = value * 64 + _DIGIT[ch]
        parts.append(value)
        start += width
    return parts[0], parts[1], parts[2], parts[3]
