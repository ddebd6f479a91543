"""Oracle extended ROWIDs: 18 characters ``OOOOOOFFFBBBBBBRRR``.

Data object number (6 chars, 32 bits), relative file number (3 chars), block number
(6 chars) and row slot (3 chars), each a big-endian number written in Oracle's base64
alphabet ``A-Z a-z 0-9 + /`` (so ``A`` is 0 and ``/`` is 63).
"""

from __future__ import annotations

from dataclasses import dataclass

from extractor.source.rowid_order import rowid_sort_key

ROWID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DIGIT = {ch: i for i, ch in enumerate(ROWID_ALPHABET)}
_WIDTHS = (6, 3, 6, 3)
MAX_ROW_SLOT = 32767  # the row slot DBMS_ROWID.ROWID_CREATE is given for an extent's end


@dataclass(frozen=True, slots=True)
class RowidParts:
    data_object_id: int
    file_no: int
    block_no: int
    row_no: int


def encode_rowid(data_object_id: int, file_no: int, block_no: int, row_no: int) -> str:
    """The 18-character ROWID text (what ``ROWIDTOCHAR(ROWID)`` returns)."""
    values = (data_object_id, file_no, block_no, row_no)
    return "".join(_base64(v, width) for v, width in zip(values, _WIDTHS, strict=True))


def decode_rowid(rowid: str) -> RowidParts:
    """The four numbers of a ROWID (raises ``InvalidRowidError`` for other text)."""
    return RowidParts(*rowid_sort_key(rowid))


def _base64(value: int, width: int) -> str:
    if not 0 <= value < 64**width:
        raise ValueError(f"{value} does not fit {width} ROWID characters")
    chars = []
    for _ in range(width):
        value, digit = divmod(value, 64)
        chars.append(ROWID_ALPHABET[digit])
    return "".join(reversed(chars))


class RowidAllocator:
    """Hands out ROWIDs of one segment: slots fill a block, then the next block."""

    def __init__(self, data_object_id: int, file_no: int, rows_per_block: int = 64) -> None:
        self._data_object_id = data_object_id
        self._file_no = file_no
        self._rows_per_block = rows_per_block
        self._next = 0
        self._first_block = 128 + (data_object_id % 1000) * 8

    def extents(self, blocks_per_extent: int = 8) -> list[tuple[str, str, int]]:
        """DBA_EXTENTS of the segment as ROWID bounds: (first ROWID, last ROWID, blocks) of
        each extent of ``blocks_per_extent`` blocks holding the slots handed out so far."""
        used_blocks = -(-self._next // self._rows_per_block)
        bounds = []
        for first in range(0, used_blocks, blocks_per_extent):
            start = self._first_block + first
            end = start + blocks_per_extent - 1
            bounds.append(
                (
                    encode_rowid(self._data_object_id, self._file_no, start, 0),
                    encode_rowid(self._data_object_id, self._file_no, end, MAX_ROW_SLOT),
                    blocks_per_extent,
                )
            )
        return bounds

    def allocate(self) -> str:
        block, slot = divmod(self._next, self._rows_per_block)
        self._next += 1
        return encode_rowid(self._data_object_id, self._file_no, self._first_block + block, slot)
