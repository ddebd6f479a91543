"""Reading and writing a replay bundle's ``logminer.jsonl`` (``docs/replay-bundle.md``):
the LogMiner rows, one JSON object a line, in SCN order.

Rows may carry further upper-case V$LOGMNR_CONTENTS columns (SQL_UNDO, DATA_OBJ#, ...) from
a production capture; those are ignored, but a known column in the wrong case is an error. A
last line without its newline that is not valid JSON is taken as being written right now and
left for the next read; any other malformed line is a BundleError naming the file and line.
Files are read in blocks: memory does not grow with the file. The SCN index of the file
(``iter_logminer_index``, ``logminer_index_blocks``) decodes three fields a line;
``last_line_scn`` reads the last line's SCN from the file's end.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from extractor.errors import BundleError
from extractor.logminer_row import (
    DATA_OBJ_COLUMN,
    LOGMINER_COLUMNS,
    OPERATION_NAMES,
    LogMinerRow,
)
from extractor.parse import implementation
from extractor.source.replay.bundle_format import LOGMINER_FILE

_REQUIRED_ROW_KEYS = ("SCN", "XID", "OPERATION_CODE", "RS_ID")
_KNOWN_ROW_KEYS = frozenset(LOGMINER_COLUMNS)
# msgspec decodes a logminer.jsonl line ~3x faster than json.loads (docs/performance.md §1).
_LINE_DECODER = msgspec.json.Decoder()


def iter_logminer(
    bundle: Path, offset: int = 0, first_line: int = 1, *, stop_offset: int | None = None
) -> Iterator[tuple[int, int, int, LogMinerRow]]:
    """``(line number, line start offset, line end offset, row)`` of every line from ``offset``
    (up to ``stop_offset``), read in blocks: memory does not grow with the file.
    A last line without a newline that is not valid JSON is still being written: it ends
    the iteration (read it next time)."""
    path = _logminer_path(bundle)
    for number, start, end, raw_line, complete in _raw_lines(path, offset, first_line, stop_offset):
        row = _contract_row(raw_line) if complete else None
        if row is None:
            value = _decoded_line(path, number, raw_line, complete)
            if value is _INCOMPLETE:
                if stop_offset is not None:  # the range was indexed whole: the file changed
                    raise BundleError(path, "line is no longer complete JSON", number)
                return
            row = _logminer_row(path, number, value)
        yield number, start, end, row


def _wire_name(field_name: str) -> str:
    return DATA_OBJ_COLUMN if field_name == "data_obj" else field_name.upper()


class _ContractRow(msgspec.Struct, rename=_wire_name, forbid_unknown_fields=True, gc=False):
    """A ``logminer.jsonl`` line exactly as the contract writes it: the required keys present
    and not null, every value of its JSON type, no other key. Such a line is decoded straight
    into typed fields (~1 us); any other line goes through ``_logminer_row``, which accepts
    what the contract tolerates (further upper-case columns, numbers written as text) and
    names what it refuses. Both give the same row for a line they both read."""

    scn: int
    xid: str
    operation_code: int
    rs_id: str
    start_scn: int | None = None
    commit_scn: int | None = None
    timestamp: str | None = None
    commit_timestamp: str | None = None
    operation: str | None = None
    seg_owner: str | None = None
    table_name: str | None = None
    row_id: str | None = None
    ssn: int | None = None
    csf: int | None = None
    rollback: int | None = None
    status: int | None = None
    info: str | None = None
    username: str | None = None
    sql_redo: str | None = None
    data_obj: int | None = None


_CONTRACT_DECODER = msgspec.json.Decoder(_ContractRow)


def _contract_row(raw_line: bytes) -> LogMinerRow | None:
    """The row of a line in the contract's exact shape; None for any other line."""
    try:
        wire = _CONTRACT_DECODER.decode(raw_line)
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        return None
    code = wire.operation_code
    return LogMinerRow(
        wire.scn,
        wire.start_scn,
        wire.commit_scn,
        wire.timestamp,
        wire.commit_timestamp,
        wire.xid,
        wire.operation or OPERATION_NAMES.get(code, ""),
        code,
        wire.seg_owner,
        wire.table_name,
        wire.row_id,
        wire.rs_id,
        wire.ssn or 0,
        wire.csf or 0,
        wire.rollback or 0,
        wire.status or 0,
        wire.info,
        wire.username,
        wire.sql_redo,
        wire.data_obj,
    )


class LogMinerIndexEntry(NamedTuple):
    """What an SCN index of ``logminer.jsonl`` needs of one line."""

    number: int
    start: int
    end: int
    scn: int
    xid: str
    operation_code: int


class _IndexFields(msgspec.Struct):
    SCN: int
    XID: str
    OPERATION_CODE: int


# Decoding only the index fields (the others, SQL_REDO included, are skipped unread) costs
# ~1.4 us a line against ~13.5 us for a whole row (docs/performance.md section 1).
_INDEX_DECODER = msgspec.json.Decoder(_IndexFields)


def iter_logminer_index(
    bundle: Path, offset: int = 0, first_line: int = 1, *, stop_offset: int | None = None
) -> Iterator[LogMinerIndexEntry]:
    """:func:`iter_logminer` for building an index: the SCN, XID and OPERATION_CODE of every
    line, the rest of the line not decoded. A line whose index fields do not decode as such,
    and a last line without its newline, are read whole, so they fail (or end the index, or
    are accepted) as in :func:`iter_logminer`; the other columns of a complete line are
    checked when the line is mined. The reference of :func:`logminer_index_blocks`."""
    path = _logminer_path(bundle)
    lines = _raw_lines(path, offset, first_line, stop_offset)
    for number, position, end, raw_line, complete in lines:
        # a line still being written is indexed only once it decodes whole
        fields = _index_fields(raw_line) if complete else None
        if fields is not None:
            yield LogMinerIndexEntry(
                number, position, end, fields.SCN, fields.XID, fields.OPERATION_CODE
            )
            continue
        value = _decoded_line(path, number, raw_line, complete)
        if value is _INCOMPLETE:
            return
        row = _logminer_row(path, number, value)
        yield LogMinerIndexEntry(number, position, end, row.scn, row.xid, row.operation_code)


class LogMinerIndexBlock(NamedTuple):
    """The index entries of consecutive lines, field by field."""

    numbers: list[int]
    starts: list[int]
    ends: list[int]
    scns: list[int]
    xids: list[str]
    operation_codes: list[int]


def logminer_index_blocks(
    bundle: Path, offset: int = 0, first_line: int = 1
) -> Iterator[LogMinerIndexBlock]:
    """The entries of :func:`iter_logminer_index`, the same ones, in blocks of ~1 MiB of lines.

    With the C extension, a block whose lines are each one JSON object (``{…}``, nothing
    around it) is decoded in one call (``decode_lines``; the lines are found in C): ~2x faster
    than line by line. Any other block, a last line without its newline, and every line
    without the extension, are read by :func:`iter_logminer_index`, so every error and every
    tolerance is its own."""
    compiled = implementation.compiled
    if compiled is None:
        yield from _entry_blocks(iter_logminer_index(bundle, offset, first_line))
        return
    position, number = offset, first_line
    carried = b""
    with _logminer_path(bundle).open("rb") as handle:
        handle.seek(offset)
        while block := handle.read(_BLOCK_BYTES):
            data = carried + block
            cut = data.rfind(b"\n") + 1
            whole, carried = data[:cut], data[cut:]
            if not whole:
                continue
            decoded = _decoded_index_block(compiled.jsonl_lines(whole, position, number), whole)
            if decoded is None:  # read line by line: the same entries, or its error
                lines = iter_logminer_index(bundle, position, number, stop_offset=position + cut)
                yield from _entry_blocks(lines)
                number += whole.count(b"\n")
            else:
                if decoded[0].numbers:  # not only blank lines
                    yield decoded[0]
                number += decoded[1]
            position += cut
    if carried:
        yield from _entry_blocks(iter_logminer_index(bundle, position, number))


def _decoded_index_block(
    lines: tuple[list[int], list[int], list[int], int] | None, data: bytes
) -> tuple[LogMinerIndexBlock, int] | None:
    """The block of ``data`` (whole lines) and its count of lines; None to read it line by
    line (a line not one ``{…}`` object, or one whose index fields do not decode)."""
    if lines is None:
        return None
    starts, ends, numbers, count = lines
    # decode_lines reads values apart wherever whitespace, or nothing, parts them. Each line
    # opens with "{" and closes with "}" (jsonl_lines), and a JSON string holds no newline:
    # a "{" after "}" and a newline opens a new value. So when as many values decode as
    # there are lines, each line is exactly one of them, as iter_logminer_index reads it.
    try:
        fields = _INDEX_DECODER.decode_lines(data)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
    if len(fields) != len(starts):
        return None
    scns = [entry.SCN for entry in fields]
    xids = [entry.XID for entry in fields]
    codes = [entry.OPERATION_CODE for entry in fields]
    return LogMinerIndexBlock(numbers, starts, ends, scns, xids, codes), count


_ENTRIES_PER_BLOCK = 4096


def _entry_blocks(entries: Iterable[LogMinerIndexEntry]) -> Iterator[LogMinerIndexBlock]:
    """``entries`` in blocks of at most ``_ENTRIES_PER_BLOCK``; when reading them raises,
    the entries read before are yielded first (the caller checks them as it did before)."""
    batch: list[LogMinerIndexEntry] = []
    try:
        for entry in entries:
            batch.append(entry)
            if len(batch) == _ENTRIES_PER_BLOCK:
                yield _entry_block(batch)
                batch = []
    except BundleError:
        if batch:
            yield _entry_block(batch)
        raise
    if batch:
        yield _entry_block(batch)


def _entry_block(batch: list[LogMinerIndexEntry]) -> LogMinerIndexBlock:
    numbers, starts, ends, scns, xids, codes = (list(field) for field in zip(*batch, strict=True))
    return LogMinerIndexBlock(numbers, starts, ends, scns, xids, codes)


def _index_fields(raw_line: bytes) -> _IndexFields | None:
    try:
        return _INDEX_DECODER.decode(raw_line)
    except (msgspec.DecodeError, UnicodeDecodeError):  # ValidationError is a DecodeError
        return None


# How much of the file's end is read for its last line (a longer line: the file is indexed).
_TAIL_BYTES = 1 << 16


def last_line_scn(bundle: Path, indexed_to: int) -> int | None:
    """The SCN of the file's last line, read from the file's end, when that line starts at or
    after ``indexed_to``, ends with its newline, is not blank and its index fields decode as
    :func:`iter_logminer_index` decodes them; None otherwise (the caller indexes the file)."""
    path = _logminer_path(bundle)
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(indexed_to, size - _TAIL_BYTES)
        if size <= start:
            return None
        handle.seek(start)
        tail = handle.read(size - start)
    if not tail.endswith(b"\n"):
        return None
    line_start = tail.rfind(b"\n", 0, len(tail) - 1) + 1
    if line_start == 0 and start > indexed_to:  # the line may begin before the bytes read
        return None
    line = tail[line_start:-1]
    fields = _index_fields(line) if line.strip() else None
    return None if fields is None else fields.SCN


_INCOMPLETE = object()


def _logminer_path(bundle: Path) -> Path:
    path = bundle / LOGMINER_FILE
    if not path.exists():
        raise BundleError(path, "is missing (a bundle needs its LogMiner rows, even if empty)")
    return path


_BLOCK_BYTES = 1 << 20


def _raw_lines(
    path: Path, offset: int, first_line: int, stop_offset: int | None
) -> Iterator[tuple[int, int, int, bytes, bool]]:
    """``(line number, start offset, end offset, line bytes, ends with a newline)`` of the
    non-blank lines from ``offset`` up to ``stop_offset``, read in blocks of ~1 MiB (a line
    longer than a block is joined across blocks)."""
    number = first_line
    position = offset
    pending = b""
    with path.open("rb") as handle:
        handle.seek(offset)
        while True:
            wanted = _BLOCK_BYTES
            if stop_offset is not None:
                wanted = min(wanted, stop_offset - position - len(pending))
            block = handle.read(wanted) if wanted > 0 else b""
            if not block:
                break
            lines = (pending + block).split(b"\n")
            pending = lines.pop()
            for line in lines:
                end = position + len(line) + 1
                if line.strip():
                    yield number, position, end, line, True
                position = end
                number += 1
    if pending.strip():
        yield number, position, position + len(pending), pending, False


def _decoded_line(path: Path, number: int, raw_line: bytes, complete: bool) -> Any:
    """The JSON value of a line; ``_INCOMPLETE`` for a last line still being written."""
    try:
        return _LINE_DECODER.decode(raw_line)
    except (msgspec.DecodeError, UnicodeDecodeError) as error:
        if not complete:
            return _INCOMPLETE
        raise BundleError(path, f"not a JSON object: {error}", number) from None


def append_logminer(bundle: Path, rows: Iterable[LogMinerRow]) -> None:
    """Append rows (whole lines, one write per row) to ``logminer.jsonl``."""
    with (bundle / LOGMINER_FILE).open("a", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row.to_json(), ensure_ascii=False) + "\n")


def _logminer_row(path: Path, number: int, raw: Any) -> LogMinerRow:
    if not isinstance(raw, dict):
        raise BundleError(path, "a row must be a JSON object", number)
    if not _KNOWN_ROW_KEYS.issuperset(raw):  # the usual case costs one check in C
        _check_further_keys(path, number, raw)
    if None in (raw.get("SCN"), raw.get("XID"), raw.get("OPERATION_CODE"), raw.get("RS_ID")):
        missing = [k for k in _REQUIRED_ROW_KEYS if raw.get(k) is None]
        raise BundleError(path, f"missing {', '.join(missing)}", number)
    try:
        return LogMinerRow.from_json(raw)
    except (KeyError, TypeError, ValueError) as error:
        raise BundleError(path, f"bad value: {error}", number) from None


def _check_further_keys(path: Path, number: int, raw: dict[str, Any]) -> None:
    """Keys outside the contract: further upper-case V$LOGMNR_CONTENTS columns are ignored;
    a contract column in the wrong case, or any other lower-case key, is an error."""
    for key in raw:
        if key in _KNOWN_ROW_KEYS:
            continue
        if key.upper() in _KNOWN_ROW_KEYS:
            raise BundleError(path, f"key {key!r} must be spelt {key.upper()!r}", number)
        if key != key.upper():
            raise BundleError(path, f"unknown key {key!r} (keys are Oracle column names)", number)
