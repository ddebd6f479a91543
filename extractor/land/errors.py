"""Errors of the landing layer: staging tables and the checkpoint file."""

from __future__ import annotations

from pathlib import Path

from extractor.errors import OracdcError


class LandingError(OracdcError):
    """A batch that cannot be landed as given."""


class InvalidIdentifierError(LandingError):
    """A schema or table name that cannot be used safely in Spark SQL."""

    def __init__(self, kind: str, name: str) -> None:
        super().__init__(
            f"{kind} name {name!r} is not a plain Spark identifier "
            "(lower-case letters, digits, _, $, #; not starting with a digit)",
            fix=f"rename the {kind} or exclude it from replication",
        )
        self.kind = kind
        self.name = name


class StagingSchemaError(LandingError):
    """A staging table whose existing columns contradict the dictionary."""


class CheckpointError(OracdcError):
    """The checkpoint file cannot be used."""

    def __init__(self, message: str, *, path: Path, fix: str | None = None) -> None:
        super().__init__(f"checkpoint {path}: {message}", fix=fix)
        self.path = path


class CheckpointCorruptError(CheckpointError):
    """The checkpoint file exists but does not hold a checkpoint this version can read."""


class CheckpointLockedError(CheckpointError):
    """Another process holds the data directory."""
