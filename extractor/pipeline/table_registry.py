"""The replicated tables: which ones are selected, their current dictionary, their staging shape.

The staging shape of a table is its current dictionary plus every column it had before
(a dropped source column stays in staging and in the replica, and stops receiving values).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from extractor.config import TableSelection
from extractor.dictionary import TableDef
from extractor.source.base import Source, TableNotFoundError

LOG = logging.getLogger(__name__)


class TableRegistry:
    """Cached dictionary of the selected tables, refreshed on DDL or an unknown column."""

    def __init__(self, source: Source, selection: TableSelection) -> None:
        self._source = source
        self._selection = selection
        self._current: dict[tuple[str, str], TableDef] = {}
        self._staging: dict[tuple[str, str], TableDef] = {}

    def resolve(self) -> list[TableDef]:
        """The selected tables that exist in the source now (refreshes the list)."""
        explicit = [(o, t) for o, t in self._selection.patterns if not _is_pattern(o + t)]
        patterns = [(o, t) for o, t in self._selection.patterns if _is_pattern(o + t)]
        listed = self._source.list_tables(patterns=patterns, names=explicit)
        tables = [t for t in listed if self._selection.matches(t.owner, t.name)]  # exclude
        for table in tables:
            self._remember(table)
        return tables

    def is_selected(self, owner: str, table: str) -> bool:
        return self._selection.matches(owner, table)

    def lookup(self, owner: str, table: str, refresh: bool = False) -> TableDef | None:
        key = (owner, table)
        if not refresh and key in self._current:
            return self._current[key]
        try:
            found = (
                self._source.refresh_table(owner, table)
                if refresh
                else self._source.table(owner, table)
            )
        except TableNotFoundError:
            return None
        self._remember(found)
        return found

    def staging_def(self, table: TableDef) -> TableDef:
        """``table`` with the columns it lost since replication began appended at the end."""
        return self._staging.get((table.owner, table.name), table)

    def _remember(self, table: TableDef) -> None:
        key = (table.owner, table.name)
        previous = self._staging.get(key)
        self._current[key] = table
        if previous is None:
            self._staging[key] = table
            return
        dropped = tuple(c for c in previous.columns if not table.has_column(c.name))
        if dropped:
            LOG.info(
                "table %s dropped column(s) %s: kept in staging",
                table.qualified_name,
                ", ".join(c.name for c in dropped),
            )
        next_id = max((c.column_id for c in table.columns), default=0)
        kept = tuple(replace(c, column_id=next_id + i + 1) for i, c in enumerate(dropped))
        self._staging[key] = TableDef(
            owner=table.owner,
            name=table.name,
            columns=table.columns + kept,
            primary_key=table.primary_key,
            supplemental_logging=table.supplemental_logging,
        )


def _is_pattern(text: str) -> bool:
    return "*" in text or "?" in text
