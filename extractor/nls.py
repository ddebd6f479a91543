"""Session NLS settings under which LogMiner renders SQL_REDO literals.

Defaults are the ones the extractor sets on its own LogMiner session (``docs/logminer.md``
§3): Debezium's, with a signed year (``SYYYY``) so that a BC date keeps its sign; a replay
bundle carries its own in ``bundle.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class NlsSettings:
    # SYYYY, not YYYY: YYYY prints a BC year without its sign (4712 BC as 4712), which would
    # read as that year AD; SYYYY prints "-4712" for it and a space before an AD year.
    date_format: str = "SYYYY-MM-DD HH24:MI:SS"
    timestamp_format: str = "SYYYY-MM-DD HH24:MI:SS.FF9"
    timestamp_tz_format: str = "SYYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM"
    numeric_characters: str = ".,"
    time_zone: str = "00:00"

    def to_json(self) -> dict[str, str]:
        return {_JSON_KEYS[f.name]: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> NlsSettings:
        unknown = set(raw) - set(_JSON_KEYS.values())
        if unknown:
            raise ValueError(f"unknown NLS settings: {sorted(unknown)}")
        by_key = {v: k for k, v in _JSON_KEYS.items()}
        return cls(**{by_key[k]: str(v) for k, v in raw.items()})

    def alter_session_sql(self) -> str:
        """The ALTER SESSION statement that makes Oracle render SQL_REDO this way."""
        return (
            "ALTER SESSION SET "
            f"NLS_DATE_FORMAT = '{self.date_format}' "
            f"NLS_TIMESTAMP_FORMAT = '{self.timestamp_format}' "
            f"NLS_TIMESTAMP_TZ_FORMAT = '{self.timestamp_tz_format}' "
            f"NLS_NUMERIC_CHARACTERS = '{self.numeric_characters}' "
            f"TIME_ZONE = '{self.time_zone}'"
        )


# The defaults until 2026-11-28, with unsigned years: replay bundles recorded then carry them
# (the compiled parser reads their values as fast as today's).
UNSIGNED_YEAR_DEFAULTS = NlsSettings(
    date_format="YYYY-MM-DD HH24:MI:SS",
    timestamp_format="YYYY-MM-DD HH24:MI:SS.FF9",
    timestamp_tz_format="YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM",
)

_JSON_KEYS = {
    "date_format": "NLS_DATE_FORMAT",
    "timestamp_format": "NLS_TIMESTAMP_FORMAT",
    "timestamp_tz_format": "NLS_TIMESTAMP_TZ_FORMAT",
    "numeric_characters": "NLS_NUMERIC_CHARACTERS",
    "time_zone": "TIME_ZONE",
}
