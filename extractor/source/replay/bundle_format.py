"""Reading and writing replay bundles, format ``oracdc-replay/1`` (``docs/replay-bundle.md``).

Files: ``bundle.json``, ``dictionary.json``, ``snapshots/<OWNER>.<TABLE>.jsonl``,
``logminer.jsonl`` and the optional ``logs.json``. Every problem raises BundleError naming
the file (and the line for JSON Lines files).

Strictness: unknown keys in ``bundle.json`` and its ``nls``, in dictionary entries, in
``logs.json`` entries and unknown columns in snapshot rows are errors (a misspelt key would
otherwise be ignored silently). A snapshot row lacking a column reads it as NULL.
``logminer.jsonl`` is read and written by ``logminer_file``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from extractor.atomic_file import atomic_text_writer
from extractor.dictionary import TableDef
from extractor.errors import BundleError, DictionaryError, ValueCodecError
from extractor.nls import NlsSettings
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
                try:
                    encoded[column.name] = encode_value(column, row.get(column.name))
                except ValueCodecError as error:
                    raise ValueCodecError(
                        f"snapshot of {table.owner}.{table.name} at SCN {scn}, row "
                        f"{row[ROWID_KEY]}: {error}",
                        fix=error.fix,
                    ) from error
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
