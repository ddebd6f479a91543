"""Errors of the dbt file generator."""

from __future__ import annotations

from pathlib import Path

from extractor.errors import OracdcError


class GenerationError(OracdcError):
    """The generator cannot write the dbt files (bad input, unwritable project)."""


class DictionaryFileError(GenerationError):
    """A ``dictionary.json`` that cannot be read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(
            f"dictionary file {path}: {reason}",
            fix="pass a replay-bundle dictionary.json ({'tables': [...]}; docs/replay-bundle.md)",
        )
        self.path = path
