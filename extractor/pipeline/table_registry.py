"""The replicated tables: which ones are selected, their current dictionary, their staging shape.

The staging shape of a table is its current dictionary plus every column it had before
(a dropped source column stays in staging and in the replica, and stops receiving values),
less the columns its ``columns:`` entry excludes, with masked columns as strings
(``column_policy``).
"""

from __future__ import annotations

import logging
from dataclasses import replace

from extractor.column_policy import ColumnPolicy, ColumnRules, resolve_policy, typed
from extractor.config import TableSelection
from extractor.dictionary import TableDef
from extractor.errors import ConfigError
from extractor.name_patterns import is_pattern
from extractor.source.base import Source, TableNotFoundError

LOG = logging.getLogger(__name__)


class TableRegistry:
    """Cached dictionary of the selected tables, refreshed on DDL or an unknown column."""

    def __init__(
        self, source: Source, selection: TableSelection, columns: ColumnRules | None = None
    ) -> None:
        self._source = source
        self._selection = selection
        self._columns = columns or ColumnRules()
        self._current: dict[tuple[str, str], TableDef] = {}
        self._staging: dict[tuple[str, str], TableDef] = {}
        self._policies: dict[tuple[str, str], ColumnPolicy] = {}
        # Tables named without wildcards that the source does not have (at the last resolve)
        self.missing: dict[str, TableNotFoundError] = {}

    def resolve(self) -> list[TableDef]:
        """The selected tables that exist in the source now (refreshes the list). A table
        named without wildcards that does not exist is left out and kept in ``missing``
        (said once): dropped or renamed, or misspelt (``SnapshotRunner`` refuses a table
        that never existed)."""
        explicit = [(o, t) for o, t in self._selection.patterns if not is_pattern(o + t)]
        patterns = [(o, t) for o, t in self._selection.patterns if is_pattern(o + t)]
        missing: dict[str, TableNotFoundError] = {}
        while True:
            try:
                listed = self._source.list_tables(patterns=patterns, names=explicit)
                break
            except TableNotFoundError as error:
                gone = [(o, t) for o, t in explicit if f"{o}.{t}".upper() == error.table]
                if not gone:
                    raise
                explicit = [name for name in explicit if name not in gone]
                missing[error.table] = error
        for name in missing.keys() - self.missing.keys():
            LOG.warning(
                "%s is named in tables but the source has no such table (dropped, renamed or "
                "misspelt?): left out while it does not exist", name, extra={"table": name},
            )  # fmt: skip
        self.missing = missing
        tables = [
            self._remember(t) for t in listed if self._selection.matches(t.owner, t.name)
        ]  # less exclude
        for table in tables:
            self.policy(table)  # an entry that does not fit the table is refused here
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
        return self._remember(found)

    def staging_def(self, table: TableDef) -> TableDef:
        """What lands for ``table``: its columns and those it lost since replication began,
        appended at the end, under its column policy (excluded ones left out, masked ones as
        strings)."""
        return self.policy(table).landed(self.unmasked_staging_def(table))

    def unmasked_staging_def(self, table: TableDef) -> TableDef:
        """``staging_def`` with the masked columns in their source types: the shape a batch
        is built in before ``column_masking`` masks it."""
        return self.policy(table).kept(self._staging.get((table.owner, table.name), table))

    def policy(self, table: TableDef) -> ColumnPolicy:
        """The column policy of ``table`` (ConfigError when its entry does not fit it)."""
        key = (table.owner, table.name)
        policy = self._policies.get(key)
        if policy is None:
            policy = self._policies[key] = resolve_policy(
                self._columns, self._staging.get(key, table)
            )
        return policy

    def replicated(self, table: TableDef) -> TableDef:
        """``table`` as its replica has it: the policy applied to its current columns."""
        return self.policy(table).landed(table)

    def verified(self, table: TableDef) -> TableDef:
        """``table`` as ``verify`` compares it: without excluded and masked columns."""
        return self.policy(table).verified(table)

    def _remember(self, listed: TableDef) -> TableDef:
        """Keep ``listed`` (as the source describes it) with its ``number_as`` choices applied;
        returns what is kept."""
        table = typed(self._columns, listed)
        key = (table.owner, table.name)
        previous = self._staging.get(key)
        before = self._current.get(key)
        if before is not None and before.columns != table.columns:
            self._refuse_renamed_policy_columns(before, table)
        self._current[key] = table
        self._policies.pop(key, None)  # columns came or went: resolve the policy again
        if previous is None:
            self._staging[key] = table
            return table
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
        return table

    def _refuse_renamed_policy_columns(self, before: TableDef, after: TableDef) -> None:
        """ConfigError when an excluded or masked column left the table while a column came
        that would land as it is: a column policy follows names, so a renamed column would
        land its raw values under the new name."""
        policy = self._policies.get((before.owner, before.name)) or resolve_policy(
            self._columns, before
        )
        gone = [c.name for c in before.columns if not after.has_column(c.name)
                and (c.name in policy.excluded or c.name in policy.masks)]  # fmt: skip
        came = [c for c in after.columns if not before.has_column(c.name)]
        if not gone or not came:
            return
        staged = replace(after, columns=after.columns + tuple(
            c for c in before.columns if not after.has_column(c.name)))  # fmt: skip
        new_policy = resolve_policy(self._columns, staged)
        covered = new_policy.excluded | set(new_policy.masks)
        plain = [c.name for c in came if c.name not in covered]
        if plain:
            raise ConfigError(
                f"{after.qualified_name}: {', '.join(gone)} (excluded or masked) left the table "
                f"while {', '.join(plain)} came, which would land as it is: a renamed column "
                "would land its raw values",
                fix=f"name {', '.join(plain)} in the table's columns entry (or take "
                f"{', '.join(gone)} out if it was dropped) and start again",
            )
