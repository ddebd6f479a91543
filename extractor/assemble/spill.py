"""Spill files: the buffered rows of one transaction, written to local disk in chunks.

Format: a sequence of chunks, each an 8-byte little-endian length followed by a
:mod:`marshal` dump of a list; each list item is one buffered event in redo order, either
the tuple of the :class:`LogMinerRow` fields (in dataclass field order) or ``None`` for an
event already cancelled (kept so that positions in the file equal the transaction's event
indices). marshal (not pickle) because it is about twice as fast for tuples of str/int/None
and the file never outlives the process that wrote it, so its Python-version-specific format
does not matter. The file is private to this process and deleted when the transaction is
emitted and read back, rolled back, or the buffer is closed (and, as a last resort, when the
:class:`SpillFile` object is garbage collected).
"""

from __future__ import annotations

import contextlib
import marshal
import os
import struct
import tempfile
import weakref
from collections.abc import Iterator, Sequence
from operator import attrgetter
from typing import Any

from extractor.errors import SpillError
from extractor.logminer_row import LogMinerRow

_HEADER = struct.Struct("<Q")
_FIELD_NAMES = LogMinerRow.__struct_fields__
_ROW_ID_FIELD = _FIELD_NAMES.index("row_id")
_row_fields = attrgetter(*_FIELD_NAMES)


def _unlink(path: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


class SpillFile:
    """An append-only spill file for one transaction; read back as a stream."""

    __slots__ = ("__weakref__", "_finalizer", "bytes_written", "events_written", "path", "xid")

    def __init__(self, spill_dir: str | os.PathLike[str], xid: str) -> None:
        self.xid = xid
        try:
            os.makedirs(spill_dir, exist_ok=True)
            fd, self.path = tempfile.mkstemp(
                prefix=f"oracdc-{xid}-", suffix=".spill", dir=spill_dir
            )
        except OSError as error:
            raise SpillError(
                f"cannot create a spill file ({error})", xid=xid, path=str(spill_dir)
            ) from error
        os.close(fd)
        self._finalizer = weakref.finalize(self, _unlink, self.path)
        self.bytes_written = 0
        self.events_written = 0

    def append(self, events: Sequence[LogMinerRow | None]) -> int:
        """Append one chunk of events; returns the bytes written."""
        payload = marshal.dumps([None if row is None else _row_fields(row) for row in events])
        try:
            with open(self.path, "ab") as stream:
                stream.write(_HEADER.pack(len(payload)))
                stream.write(payload)
        except OSError as error:
            raise SpillError(f"cannot write ({error})", xid=self.xid, path=self.path) from error
        written = _HEADER.size + len(payload)
        self.bytes_written += written
        self.events_written += len(events)
        return written

    def read(self, cancelled: set[int] | frozenset[int] = frozenset()) -> Iterator[LogMinerRow]:
        """Stream the surviving events back in order, skipping event indices in ``cancelled``.

        Holds one chunk in memory at a time.
        """
        index = 0
        for chunk in self._chunks():
            for item in chunk:
                if item is not None and index not in cancelled:
                    yield LogMinerRow(*item)
                index += 1

    def positions_of_row_ids(self, wanted: set[str]) -> dict[str, list[int]]:
        """Event indices (ascending) of the live spilled events whose ROW_ID is in ``wanted``."""
        found: dict[str, list[int]] = {}
        index = 0
        for chunk in self._chunks():
            for item in chunk:
                if item is not None and item[_ROW_ID_FIELD] in wanted:
                    found.setdefault(item[_ROW_ID_FIELD], []).append(index)
                index += 1
        return found

    def _chunks(self) -> Iterator[list[Any]]:
        try:
            with open(self.path, "rb") as stream:
                while header := stream.read(_HEADER.size):
                    (size,) = _HEADER.unpack(header)
                    payload = stream.read(size)
                    if len(header) != _HEADER.size or len(payload) != size:
                        raise SpillError("truncated chunk", xid=self.xid, path=self.path)
                    chunk: list[Any] = marshal.loads(payload)
                    del payload
                    yield chunk
        except OSError as error:
            raise SpillError(f"cannot read ({error})", xid=self.xid, path=self.path) from error

    def delete(self) -> None:
        """Remove the file (idempotent)."""
        self._finalizer()

    @property
    def exists(self) -> bool:
        return self._finalizer.alive
