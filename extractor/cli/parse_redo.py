"""``oracdc parse-redo``: SQL_REDO JSON Lines on stdin -> one parsed JSON line each on stdout.

``--raw`` (the default) shows each literal as text: a string literal without its quotes
and with ``''`` unescaped, ``null`` for NULL / IS NULL / Unsupported Type, the verbatim
source for anything else. ``--dictionary FILE`` (a replay-bundle ``dictionary.json``) types
every value for its column instead; ``--nls FILE`` (a ``bundle.json``) gives the NLS
settings the text was rendered with. A line that fails gives ``{"error": ...}``; the
command goes on and exits 1 at the end if any line failed (a statement that cannot be
parsed also gives its ``position``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from extractor.dictionary import TableDef
from extractor.errors import DictionaryError, OracdcError, ParseRedoInputError
from extractor.nls import NlsSettings
from extractor.parse import UNSUPPORTED, ParsedRedo, RedoParseError, parse_redo, typed_row
from extractor.parse.literals import Literal

Dictionary = dict[tuple[str | None, str], TableDef]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "parse-redo",
        help="parse SQL_REDO statements (JSON Lines on stdin) and print their parts",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--raw", action="store_true", help="literals as text (the default)")
    mode.add_argument(
        "--dictionary", type=Path, metavar="FILE", help="type values with this dictionary.json"
    )
    parser.add_argument(
        "--nls", type=Path, metavar="FILE", help="bundle.json holding the NLS settings"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    dictionary = load_dictionary(args.dictionary) if args.dictionary else None
    nls = load_nls(args.nls) if args.nls else NlsSettings()
    return process(sys.stdin, sys.stdout, dictionary, nls)


def process(source: TextIO, sink: TextIO, dictionary: Dictionary | None, nls: NlsSettings) -> int:
    failures = 0
    for line in source:
        if not line.strip():
            continue
        try:
            result = _parse_line(line, dictionary, nls)
        except OracdcError as error:
            failures += 1
            result = {"error": error.one_line()}
            if isinstance(error, RedoParseError):
                result["position"] = error.position
        # ASCII-escaped: a lone surrogate in the input cannot break the output encoding.
        sink.write(json.dumps(result) + "\n")
    return 1 if failures else 0


def _parse_line(line: str, dictionary: Dictionary | None, nls: NlsSettings) -> dict[str, Any]:
    try:
        record = json.loads(line)
        sql = record["sql_redo"]
    except (ValueError, KeyError, TypeError):
        raise ParseRedoInputError('input line is not a JSON object with "sql_redo"') from None
    if not isinstance(sql, str):
        raise ParseRedoInputError('"sql_redo" is not a string')
    if dictionary is None:
        parsed = parse_redo(sql)
        return _result(parsed, _raw(parsed.new), _raw(parsed.old))
    parsed = parse_redo(sql, tables=dictionary)
    table = dictionary.get((parsed.owner, parsed.table))
    if table is None:
        raise ParseRedoInputError(f"table {parsed.qualified_name} is not in the dictionary")
    row = typed_row(parsed, table, nls)
    result = _result(parsed, _json_values(row.new), _json_values(row.old))
    unsupported = [c for image in row for c, v in image.items() if v is UNSUPPORTED]
    if unsupported:
        result["unsupported"] = unsupported
    return result


def _result(parsed: ParsedRedo, new: dict[str, Any], old: dict[str, Any]) -> dict[str, Any]:
    return {
        "operation": parsed.operation,
        "schema": parsed.owner,
        "table": parsed.table,
        "new": new,
        "old": old,
        "rowid": parsed.rowid,
        "recovered_quotes": parsed.recovered_quotes,
    }


def _raw(literals: Mapping[str, Literal]) -> dict[str, str | None]:
    return {column: literal.string_value() for column, literal in literals.items()}


def _json_values(values: Mapping[str, object]) -> dict[str, Any]:
    return {column: json_value(value) for column, value in values.items()}


def json_value(value: object) -> Any:
    """A typed value as JSON, in the replay-bundle snapshot encoding: decimals as exact
    text, datetimes as ISO 8601, bytes as lower-case hex, NaN / infinities as strings,
    Unsupported Type as null (listed under ``unsupported``)."""
    if value is None or value is UNSUPPORTED:
        return None
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def load_dictionary(path: Path) -> Dictionary:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        tables = [TableDef.from_json(entry) for entry in raw["tables"]]
    except (OSError, ValueError, KeyError, TypeError, DictionaryError) as error:
        raise ParseRedoInputError(
            f"cannot read dictionary {path}: {error}",
            fix='pass a replay-bundle dictionary.json ({"tables": [...]})',
        ) from None
    return {(t.owner, t.name): t for t in tables}


def load_nls(path: Path) -> NlsSettings:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return NlsSettings.from_json(raw.get("nls", raw))
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ParseRedoInputError(
            f"cannot read NLS settings from {path}: {error}",
            fix='pass a replay-bundle bundle.json (its "nls" object)',
        ) from None
