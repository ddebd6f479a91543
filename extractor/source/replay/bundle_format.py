"""Reading and writing replay bundles, format ``oracdc-replay/1`` (``docs/replay-bundle.md``).

Files: ``bundle.json``, ``dictionary.json``, ``snapshots/<OWNER>.<TABLE>.jsonl``,
``logminer.jsonl`` and the optional ``logs.json``. Every problem raises BundleError naming
the file (and the line for JSON Lines files).

Strictness: unknown keys in ``bundle.json`` and its ``nls``, in dictionary entries, in
``logs.json`` entries and unknown columns in snapshot rows are errors (a misspelt key would
otherwise be ignored silently). ``logminer.jsonl`` rows may carry further upper-case
V$LOGMNR_CONTENTS columns (SQL_UNDO, DATA_OBJ#, ...) from a production capture; those are
ignored, but a known column in the wrong case is an error. A snapshot row lacking a column
reads it as NULL. A last line without its newline that is not valid JSON is taken as being
written right now and left for the next read; any other malformed line is an error.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from extractor.atomic_file import atomic_text_writer
from extractor.dictionary import TableDef
from extractor.errors import BundleError, DictionaryError, ValueCodecError
from extractor.logminer_row import (
    DATA_OBJ_COLUMN,
    LOGMINER_COLUMNS,
    OPERATION_NAMES,
    LogMinerRow,
)
from extractor.nls import NlsSettings
from extractor.parse import implementation
from extractor.source.replay.value_codec import decode_value, encode_value

FORMAT = "oracdc-replay/1"
BUNDLE_FILE = "bundle.json"
DICTIONARY_FILE = "dictionary.json"
LOGMINER_FILE = "logminer.jsonl"
LOGS_FILE = "logs.json"
SNAPSHOT_DIR = "snapshots"
ROWID_KEY = "ROWID"

_BUNDLE_KEYS = frozenset({"format", "database", "nls", "current_scn"})
_LOG_KEYS = ("thread", "sequence", "first_change", "next_change", "name", "archived", "available")
_REQUIRED_ROW_KEYS = ("SCN", "XID", "OPERATION_CODE", "RS_ID")
_KNOWN_ROW_KEYS = frozenset(LOGMINER_COLUMNS)
# msgspec decodes a logminer.jsonl line ~3x faster than json.loads (docs/performance.md §1).
_LINE_DECODER = msgspec.json.Decoder()


@dataclass(frozen=True)
class BundleHeader:
    """``bundle.json``."""

    database: str
    nls: NlsSettings
    current_scn: int | None = None

    def to_json(self) -> dict[str, Any]:
        raw: dict[str, Any] = {"format": FORMAT, "database": self.database}
        raw["nls"] = self.nls.to_json()
        if self.current_scn is not None:
            raw["current_scn"] = self.current_scn
        return raw


@dataclass(frozen=True)
class LogFileEntry:
    """One entry of ``logs.json``; ``next_change`` None means open-ended (CURRENT)."""

    thread: int
    sequence: int
    first_change: int
    next_change: int | None
    name: str
    archived: bool
    available: bool

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in _LOG_KEYS}


@dataclass(frozen=True)
class SnapshotFile:
    """A snapshot file: its SCN and its rows (column name -> Python value, plus ROWID)."""

    scn: int
    rows: list[dict[str, object]]


# -- bundle.json ---------------------------------------------------------------------------


def read_header(bundle: Path) -> BundleHeader:
    path = bundle / BUNDLE_FILE
    raw = _read_json(path)
    if not isinstance(raw, dict):
        raise BundleError(path, "must hold a JSON object")
    unknown = sorted(set(raw) - _BUNDLE_KEYS)
    if unknown:
        raise BundleError(path, f"unknown key(s) {unknown}")
    if raw.get("format") != FORMAT:
        raise BundleError(
            path, f"format is {raw.get('format')!r}; this version reads only {FORMAT!r}"
        )
    if not isinstance(raw.get("database"), str):
        raise BundleError(path, "database must be a string")
    nls_raw = raw.get("nls", {})
    if not isinstance(nls_raw, dict):
        raise BundleError(path, "nls must be an object")
    try:
        nls = NlsSettings.from_json(nls_raw)
    except ValueError as error:
        raise BundleError(path, f"nls: {error}") from None
    current = raw.get("current_scn")
    if current is not None and (isinstance(current, bool) or not isinstance(current, int)):
        raise BundleError(path, f"current_scn must be an integer, not {current!r}")
    return BundleHeader(database=raw["database"], nls=nls, current_scn=current)


def write_header(bundle: Path, header: BundleHeader) -> None:
    _write_json(bundle / BUNDLE_FILE, header.to_json())


# -- dictionary.json -----------------------------------------------------------------------


def read_dictionary(bundle: Path) -> list[TableDef]:
    path = bundle / DICTIONARY_FILE
    raw = _read_json(path)
    if not isinstance(raw, dict) or set(raw) != {"tables"} or not isinstance(raw["tables"], list):
        raise BundleError(path, 'must be {"tables": [...]}')
    tables: list[TableDef] = []
    for index, entry in enumerate(raw["tables"]):
        where = f"tables[{index}]"
        if not isinstance(entry, dict):
            raise BundleError(path, f"{where} must be an object")
        try:
            tables.append(TableDef.from_json(entry))
        except (DictionaryError, TypeError, ValueError) as error:
            raise BundleError(path, f"{where}: {error}") from None
    return tables


def write_dictionary(bundle: Path, tables: Iterable[TableDef]) -> None:
    _write_json(bundle / DICTIONARY_FILE, {"tables": [t.to_json() for t in tables]})


# -- logs.json -----------------------------------------------------------------------------


def read_logs(bundle: Path) -> list[LogFileEntry] | None:
    """The log catalog, or None when the bundle has no ``logs.json``."""
    path = bundle / LOGS_FILE
    if not path.exists():
        return None
    raw = _read_json(path)
    if not isinstance(raw, list):
        raise BundleError(path, "must hold a JSON array of log entries")
    entries = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or set(item) - set(_LOG_KEYS):
            raise BundleError(path, f"entry {index} must be an object with keys {_LOG_KEYS}")
        try:
            entries.append(
                LogFileEntry(
                    thread=int(item.get("thread", 1)),
                    sequence=int(item["sequence"]),
                    first_change=int(item["first_change"]),
                    next_change=None
                    if item.get("next_change") is None
                    else int(item["next_change"]),
                    name=str(item.get("name", "")),
                    archived=bool(item.get("archived", True)),
                    available=bool(item.get("available", True)),
                )
            )
        except (KeyError, TypeError, ValueError) as error:
            raise BundleError(path, f"entry {index}: missing or bad {error}") from None
    return entries


def write_logs(bundle: Path, entries: Iterable[LogFileEntry]) -> None:
    _write_json(bundle / LOGS_FILE, [e.to_json() for e in entries])


# -- snapshots/<OWNER>.<TABLE>.jsonl -------------------------------------------------------


def snapshot_path(bundle: Path, owner: str, table: str) -> Path:
    return bundle / SNAPSHOT_DIR / f"{owner}.{table}.jsonl"


def read_snapshot(bundle: Path, table: TableDef) -> SnapshotFile | None:
    """The table's snapshot file, values decoded per its dictionary entry; None if absent."""
    path = snapshot_path(bundle, table.owner, table.name)
    if not path.exists():
        return None
    lines = iter(_json_lines(path, 0)[0])
    try:
        number, first = next(lines)
    except StopIteration:
        raise BundleError(path, 'is empty; the first line must be {"scn": <SCN>}') from None
    if not isinstance(first, dict) or set(first) != {"scn"} or not _is_int(first["scn"]):
        raise BundleError(path, 'the first line must be {"scn": <SCN>}', number)
    columns = {c.name: c for c in table.columns}
    rows = []
    for number, raw in lines:
        rows.append(_snapshot_row(path, number, raw, columns))
    return SnapshotFile(scn=int(first["scn"]), rows=rows)


def write_snapshot(
    bundle: Path, table: TableDef, scn: int, rows: Iterable[Mapping[str, object]]
) -> None:
    """Write a snapshot file from rows of ``spark_types`` values keyed by Oracle column name
    (plus ``ROWID``)."""
    path = snapshot_path(bundle, table.owner, table.name)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text_writer(path) as out:
        out.write(json.dumps({"scn": scn}) + "\n")
        for row in rows:
            encoded: dict[str, Any] = {ROWID_KEY: row[ROWID_KEY]}
            for column in table.columns:
                encoded[column.name] = encode_value(column, row.get(column.name))
            out.write(json.dumps(encoded, ensure_ascii=False) + "\n")


def snapshot_tables(bundle: Path) -> list[tuple[str, str]]:
    """``(owner, table)`` of every snapshot file present."""
    directory = bundle / SNAPSHOT_DIR
    if not directory.is_dir():
        return []
    found = []
    for path in sorted(directory.glob("*.jsonl")):
        owner, dot, table = path.name[: -len(".jsonl")].partition(".")
        if dot:
            found.append((owner, table))
    return found


def _snapshot_row(
    path: Path, number: int, raw: Any, columns: Mapping[str, Any]
) -> dict[str, object]:
    if not isinstance(raw, dict):
        raise BundleError(path, "a snapshot row must be a JSON object", number)
    rowid = raw.get(ROWID_KEY)
    if not isinstance(rowid, str):
        raise BundleError(path, "the row has no ROWID string", number)
    unknown = sorted(set(raw) - set(columns) - {ROWID_KEY})
    if unknown:
        raise BundleError(path, f"unknown column(s) {unknown}", number)
    row: dict[str, object] = {ROWID_KEY: rowid}
    for name, column in columns.items():
        try:
            row[name] = decode_value(column, raw.get(name))
        except ValueCodecError as error:
            raise BundleError(
                path, f"column {name} ({column.data_type}): {error}", number
            ) from None
    return row


# -- logminer.jsonl ------------------------------------------------------------------------


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


# -- shared helpers ------------------------------------------------------------------------


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BundleError(path, "is missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BundleError(path, f"cannot be read: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise BundleError(path, f"is not valid JSON: {error.msg}", error.lineno) from None


def _json_lines(path: Path, offset: int, first_line: int = 1) -> tuple[list[tuple[int, Any]], int]:
    """``(line number, value)`` of every complete line from ``offset``; blank lines skipped."""
    with path.open("rb") as handle:
        handle.seek(offset)
        data = handle.read()
    parsed: list[tuple[int, Any]] = []
    position = 0
    number = first_line
    while position < len(data):
        end = data.find(b"\n", position)
        complete = end >= 0
        raw_line = data[position : end if complete else len(data)]
        if raw_line.strip():
            try:
                value = json.loads(raw_line.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                if not complete:  # still being written: read it next time
                    break
                raise BundleError(path, f"not a JSON object: {error}", number) from None
            parsed.append((number, value))
        position = end + 1 if complete else len(data)
        number += 1
    return parsed, offset + position


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text_writer(path) as out:
        out.write(json.dumps(value, indent=1, ensure_ascii=False) + "\n")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
