"""Tables from a replay-bundle ``dictionary.json`` (``{"tables": [...]}``)."""

from __future__ import annotations

import json
from pathlib import Path

from extractor.dictionary import TableDef
from extractor.errors import DictionaryError, DictionaryFileError


def load_dictionary_tables(path: Path) -> tuple[TableDef, ...]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise DictionaryFileError(path, f"cannot read it ({error.strerror})") from error
    except json.JSONDecodeError as error:
        raise DictionaryFileError(path, f"not JSON ({error})") from error
    if not isinstance(raw, dict) or not isinstance(raw.get("tables"), list):
        raise DictionaryFileError(path, "expected an object with a 'tables' list")
    try:
        return tuple(TableDef.from_json(entry) for entry in raw["tables"])
    except DictionaryError as error:
        raise DictionaryFileError(path, str(error)) from error
