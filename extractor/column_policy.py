"""Per-table column choices of ``oracdc.yml`` (``columns:``): which columns land, which are
masked before landing.

A ``columns`` entry names tables (``OWNER.TABLE``, wildcards ``*`` / ``?``) and either an
``include`` or an ``exclude`` list of columns (names or patterns), and a ``mask`` mapping of
columns to ``hash`` or ``redact``. Resolved against a table's dictionary it gives that table's
``ColumnPolicy``:

- excluded columns are never read by a snapshot, never land, and are not verified;
- masked columns land as strings (``landed``): ``hash`` the salted SHA-256 of the value,
  ``redact`` a fixed text (``extractor.land.column_masking``); ``verify`` skips them.

Primary key columns can be neither excluded nor masked: they identify the replica's rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, get_args

from extractor.dictionary import ColumnDef, TableDef, oracle_type_text
from extractor.errors import ConfigError
from extractor.keys import keyed_by_primary_key
from extractor.name_patterns import is_pattern, name_matches, table_matches
from extractor.number_choice import parse_number_choice, with_number_choices
from extractor.spark_types import is_unbounded_number

MaskKind = Literal["hash", "redact"]
MASK_KINDS: Final[tuple[str, ...]] = get_args(MaskKind)
DEFAULT_SALT_ENV: Final = "ORACDC_MASK_SALT"
# A masked column lands as text of at most this many characters (a SHA-256 in hex).
MASKED_LENGTH: Final = 64

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_$#*?]{1,128}$")
_RULE_KEYS = frozenset({"include", "exclude", "mask", "number_as"})


@dataclass(frozen=True)
class ColumnRule:
    """One entry of ``columns:``: the tables it names and its choices (upper-case names)."""

    owner: str
    table: str
    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    masks: tuple[tuple[str, MaskKind], ...] = ()
    # (column pattern, Spark type or None for STRING): number_as of unbounded NUMBER / FLOAT
    number_as: tuple[tuple[str, str | None], ...] = ()

    @property
    def name(self) -> str:
        return f"{self.owner}.{self.table}"

    @property
    def names_one_table(self) -> bool:
        return not is_pattern(self.owner + self.table)

    @property
    def hides_values(self) -> bool:
        """True when the entry keeps some values from landing (exclude, include, mask)."""
        return self.include is not None or bool(self.exclude) or bool(self.masks)

    def matches_table(self, owner: str, table: str) -> bool:
        return table_matches(self.owner, self.table, owner, table)


@dataclass(frozen=True)
class ColumnRules:
    """Every ``columns:`` entry, and the environment variable holding the hash salt."""

    rules: tuple[ColumnRule, ...] = ()
    salt_env: str = DEFAULT_SALT_ENV
    number_as: str | None = None  # the global number_as (None: STRING)

    @property
    def hashes(self) -> bool:
        return any(kind == "hash" for rule in self.rules for _, kind in rule.masks)


@dataclass(frozen=True)
class ColumnPolicy:
    """One table's resolved choices (Oracle column names)."""

    excluded: frozenset[str] = frozenset()
    masks: Mapping[str, MaskKind] = field(default_factory=dict)

    @property
    def is_plain(self) -> bool:
        """True when every column lands as it is."""
        return not self.excluded and not self.masks

    def kept(self, table: TableDef) -> TableDef:
        """``table`` without its excluded columns: what a snapshot reads. Its key stays the
        source table's (a table keyed by ROWID for its LOB columns stays so without them)."""
        if not self.excluded:
            return table
        return _reshaped(table, (c for c in table.columns if c.name not in self.excluded))

    def landed(self, table: TableDef) -> TableDef:
        """What lands: ``kept`` with each masked column as a string of ``MASKED_LENGTH``."""
        kept = self.kept(table)
        if not self.masks:
            return kept
        return _reshaped(table, (_masked(c) if c.name in self.masks else c for c in kept.columns))

    def verified(self, table: TableDef) -> TableDef:
        """What ``verify`` compares: ``kept`` without the masked columns."""
        return _reshaped(table, (c for c in self.kept(table).columns if c.name not in self.masks))


PLAIN: Final = ColumnPolicy()


def _reshaped(source: TableDef, columns: Iterable[ColumnDef]) -> TableDef:
    """``source`` with other columns; its key stays the source table's (a table keyed by ROWID
    for its LOB columns stays so without them)."""
    return replace(source, columns=tuple(columns), keyed_by_rowid=not keyed_by_primary_key(source))


def _masked(column: ColumnDef) -> ColumnDef:
    return ColumnDef(
        column.name, column.column_id, "VARCHAR2", data_length=MASKED_LENGTH,
        nullable=column.nullable,
    )  # fmt: skip


def resolve_policy(rules: ColumnRules, table: TableDef) -> ColumnPolicy:
    """The policy of ``table``; ConfigError when two entries name it, when an entry names a
    column the table lacks (an entry naming this one table and a column without wildcards),
    or when it would exclude or mask a primary key column."""
    matching = [r for r in rules.rules if r.matches_table(table.owner, table.name)]
    if not matching:
        return PLAIN
    if len(matching) > 1:
        raise ConfigError(
            f"{table.qualified_name} matches more than one columns entry: "
            f"{', '.join(r.name for r in matching)}",
            fix="make the columns entries name disjoint tables",
        )
    rule = matching[0]
    if rule.names_one_table:
        _refuse_unknown_columns(rule, table)
    names = table.column_names
    excluded = {n for n in names if _any(rule.exclude, n)}
    if rule.include is not None:
        excluded |= {n for n in names if not _any(rule.include, n)}
    masks: dict[str, MaskKind] = {}
    for column in names:
        kinds = sorted({kind for pattern, kind in rule.masks if _any((pattern,), column)})
        if len(kinds) > 1:
            raise ConfigError(
                f"columns entry {rule.name}: {column} matches the masks {' and '.join(kinds)}",
                fix="make the mask patterns name disjoint columns",
            )
        if kinds and column not in excluded:  # an excluded column needs no mask
            masks[column] = kinds[0]
    for key in table.primary_key:
        if key in excluded or key in masks:
            what = "masked" if key in masks else "excluded"
            raise ConfigError(
                f"columns entry {rule.name}: {key} is a primary key column of "
                f"{table.qualified_name}; it cannot be {what}",
                fix=f"take {key} out of the entry's "
                + ("mask" if key in masks else "include/exclude lists (an include list "
                   "must name every key column)"),
            )  # fmt: skip
    return ColumnPolicy(frozenset(excluded), masks)


def _refuse_unknown_columns(rule: ColumnRule, table: TableDef) -> None:
    named = [*(rule.include or ()), *rule.exclude, *(p for p, _ in rule.masks)]
    named += [p for p, _ in rule.number_as]
    upper = {n.upper() for n in table.column_names}
    unknown = [n for n in named if not is_pattern(n) and n not in upper]
    if unknown:
        raise ConfigError(
            f"columns entry {rule.name}: {table.qualified_name} has no column "
            f"{', '.join(unknown)} (misspelt, dropped or renamed?)",
            fix="name the columns as ALL_TAB_COLUMNS spells them now; take dropped ones out",
        )


def _any(patterns: tuple[str, ...], column: str) -> bool:
    return name_matches(patterns, column)


def parse_column_rules(raw: Any, salt_env: Any, where: str, number_as: Any = None) -> ColumnRules:
    """The ``columns``, ``mask_salt_env`` and ``number_as`` keys of oracdc.yml; ConfigError
    naming the key."""
    default = None if number_as is None else parse_number_choice(number_as, f"{where}: number_as")
    env = DEFAULT_SALT_ENV if salt_env is None else salt_env
    if not isinstance(env, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", env):
        raise ConfigError(
            f"{where}: mask_salt_env must name an environment variable, not {env!r}",
            fix=f"leave it out to use {DEFAULT_SALT_ENV}",
        )
    if raw is None:
        return ColumnRules((), env, default)
    if not isinstance(raw, Mapping):
        raise ConfigError(
            f"{where}: columns must map OWNER.TABLE entries to include/exclude/mask",
            fix="e.g. columns: {HR.EMPLOYEES: {exclude: [SALARY], mask: {EMAIL: hash}}}",
        )
    rules = tuple(_rule(str(name), entry, where) for name, entry in raw.items())
    return ColumnRules(rules, env, default)


def _rule(name: str, raw: Any, where: str) -> ColumnRule:
    at = f"{where}: columns.{name}"
    owner, dot, table = name.strip().partition(".")
    if not dot or not _NAME_PATTERN.match(owner) or not _NAME_PATTERN.match(table):
        raise ConfigError(f"{at}: not OWNER.TABLE (letters, digits, _ $ #, * ?)")
    if not isinstance(raw, Mapping) or not raw:
        raise ConfigError(f"{at} must be a mapping with include, exclude or mask")
    unknown = sorted(set(raw) - _RULE_KEYS)
    if unknown:
        raise ConfigError(
            f"{at}: unknown key(s) {', '.join(map(str, unknown))}", fix="use include, exclude, mask"
        )
    if "include" in raw and "exclude" in raw:
        raise ConfigError(
            f"{at}: include and exclude contradict each other",
            fix="keep one: include lists every column that lands, exclude the ones that do not",
        )
    include = _names(raw["include"], f"{at}.include") if "include" in raw else None
    if include == ():
        raise ConfigError(f"{at}.include is empty", fix="list the columns that land")
    exclude = _names(raw.get("exclude", []), f"{at}.exclude")
    masks = _masks(raw.get("mask", {}), f"{at}.mask")
    number_as = _number_choices(raw.get("number_as", {}), f"{at}.number_as")
    for pattern, _ in masks:
        dropped = _any(exclude, pattern) or (include is not None and not _any(include, pattern))
        if dropped and not is_pattern(pattern):
            raise ConfigError(
                f"{at}: {pattern} is masked but does not land",
                fix="an excluded column needs no mask: keep it in one of the two",
            )
    return ColumnRule(owner.upper(), table.upper(), include, exclude, masks, number_as)


def _number_choices(raw: Any, at: str) -> tuple[tuple[str, str | None], ...]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{at} must map columns to a type", fix="e.g. {AMOUNT: 'decimal(38,2)'}")
    choices: list[tuple[str, str | None]] = []
    for column, choice in raw.items():
        (name,) = _names([column], at)
        choices.append((name, parse_number_choice(choice, f"{at}.{column}")))
    return tuple(choices)


def typed(rules: ColumnRules, table: TableDef) -> TableDef:
    """``table`` with the ``number_as`` choices of its entry and the global one applied
    (``number_choice``). Primary key columns and masked columns stay exact: a rounded key
    would merge distinct rows, a masked column hashes the exact text. ConfigError when the
    entry names (without wildcards) a column that is not an unbounded NUMBER or a FLOAT, or
    one of those."""
    matching = [r for r in rules.rules if r.matches_table(table.owner, table.name)]
    if not matching:
        return with_number_choices(table, rules.number_as, {}, frozenset(table.primary_key))
    rule = matching[0]  # two entries for one table are refused by resolve_policy
    masked = {c.name for c in table.columns if any(_any((p,), c.name) for p, _ in rule.masks)}
    keep = frozenset(masked | set(table.primary_key))
    per_column: dict[str, str | None] = {}
    for pattern, choice in rule.number_as:
        for column in table.columns:
            if not _any((pattern,), column.name):
                continue
            if is_pattern(pattern) and (column.name in keep or not is_unbounded_number(column)):
                continue
            why = _number_as_refusal(column, keep, masked)
            if why is not None:
                raise ConfigError(
                    f"columns entry {rule.name}: number_as of {table.qualified_name}."
                    f"{column.name}: {why}",
                    fix=f"take {column.name} out of number_as",
                )
            per_column[column.name] = choice
    return with_number_choices(table, rules.number_as, per_column, keep)


def _number_as_refusal(column: ColumnDef, keep: frozenset[str], masked: set[str]) -> str | None:
    if column.name in masked:
        return "a masked column hashes its exact text"
    if column.name in keep:
        return "a primary key column stays exact (a rounded key would merge distinct rows)"
    if not is_unbounded_number(column):
        return (
            f"number_as applies to NUMBER without precision and FLOAT; it is "
            f"{oracle_type_text(column)} (exact already)"
        )
    return None


def _names(raw: Any, at: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(n, str) for n in raw):
        raise ConfigError(f"{at} must be a list of column names", fix="e.g. [SALARY, BONUS]")
    for name in raw:
        if not _NAME_PATTERN.match(name):
            raise ConfigError(f"{at}: {name!r} is not a column name (letters, digits, _ $ #, * ?)")
    return tuple(n.upper() for n in raw)


def _masks(raw: Any, at: str) -> tuple[tuple[str, MaskKind], ...]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{at} must map columns to hash or redact", fix="e.g. {EMAIL: hash}")
    masks: list[tuple[str, MaskKind]] = []
    for column, kind in raw.items():
        (name,) = _names([column], at)
        if kind not in MASK_KINDS:
            raise ConfigError(
                f"{at}.{column}: {kind!r} is not a mask",
                fix="hash (salted SHA-256: equal values stay equal) or redact (a fixed text)",
            )
        masks.append((name, kind))
    return tuple(masks)
