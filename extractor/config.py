"""``oracdc.yml``: what to replicate, from where, into where. Validated on load.

Relative paths in the file are relative to the file's directory. Secrets never live here:
the Oracle password comes from an environment variable (``password_env``) or an owner-only
file (``password_file``); ``wallet_dir`` adds a python-oracledb wallet for TLS; a ``password``
key is refused.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from extractor.column_policy import ColumnRules, parse_column_rules
from extractor.errors import ConfigError
from extractor.name_patterns import is_pattern, table_matches
from extractor.nls import NlsSettings
from extractor.parse.nls_check import check_nls
from extractor.snapshot_modes import SnapshotModes, parse_snapshot_modes

LOG = logging.getLogger(__name__)

CONFIG_FILE_NAME = "oracdc.yml"

ErrorPolicy = Literal["fail", "warn", "skip"]
ERROR_POLICIES: tuple[ErrorPolicy, ...] = ("fail", "warn", "skip")
SOURCE_KINDS = ("oracle", "sim", "replay")

_ORACLE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]{0,127}$")
_PATTERN = re.compile(r"^[A-Za-z0-9_$#*?]{1,128}$")
_SPARK_SCHEMA = re.compile(r"^[a-z_][a-z0-9_]{0,127}$")


def _any_matches(patterns: tuple[tuple[str, str], ...], owner: str, table: str) -> bool:
    return any(table_matches(o, t, owner, table) for o, t in patterns)


@functools.lru_cache(maxsize=65536)
def _selection_matches(
    patterns: tuple[tuple[str, str], ...],
    excluded: tuple[tuple[str, str], ...],
    owner: str,
    table: str,
) -> bool:
    """Asked for every LogMiner row: cached per (patterns, excluded, owner, table)."""
    return _any_matches(patterns, owner, table) and not _any_matches(excluded, owner, table)


@dataclass(frozen=True)
class TableSelection:
    """Tables to replicate: ``OWNER.TABLE`` entries, where either part may use ``*`` / ``?``,
    less those an ``exclude`` entry matches."""

    patterns: tuple[tuple[str, str], ...]
    excluded: tuple[tuple[str, str], ...] = ()

    def matches(self, owner: str, table: str) -> bool:
        return _selection_matches(self.patterns, self.excluded, owner, table)

    @property
    def owners(self) -> tuple[str, ...]:
        return tuple(sorted({o for o, _ in self.patterns}))


MINING_READERS = ("auto", "process", "inline")


@dataclass(frozen=True)
class MiningSettings:
    window_scns: int = 20_000
    min_window_scns: int = 100
    max_window_scns: int = 1_000_000
    target_rows_per_window: int = 200_000
    poll_interval_seconds: float = 5.0
    # Open transactions begun more than this many SCNs below a window's end are discarded
    # (logged, counted); None: never (docs/transactions.md "Transactions that never end").
    transaction_retention_scns: int | None = None
    # Where windows are read and transactions assembled: "process" (a mining process beside
    # the extracting one, for replay and Oracle sources), "inline", or "auto" (process where
    # the source allows it and the machine has two cores or more; docs/extraction.md).
    reader: str = "auto"


@dataclass(frozen=True)
class OracdcConfig:
    """The validated content of ``oracdc.yml``."""

    path: Path | None
    source: Mapping[str, Any]
    tables: TableSelection
    data_dir: Path
    # per-table column choices: include/exclude lists and masks (column_policy)
    columns: ColumnRules = field(default_factory=ColumnRules)
    # how each table starts: initial, no_data, initial_only, when_needed (snapshot_modes)
    snapshot_modes: SnapshotModes = field(default_factory=SnapshotModes)
    staging_schema: str = "oracdc_staging"
    error_policy: ErrorPolicy = "fail"
    mining: MiningSettings = field(default_factory=MiningSettings)
    memory_budget_mb: int = 256
    snapshot_batch_rows: int = 50_000
    nls: NlsSettings = field(default_factory=NlsSettings)
    spark_remote: str | None = None
    spark_master: str = "local[2]"
    # "auto": batches land as Parquet files written here where the staging storage is
    # reachable, else through Spark; "spark": always through Spark (docs/landing.md).
    spark_landing: str = "auto"
    # the dbt project of the replicas; from a file: dbt.project_dir, else the file's directory
    dbt_project_dir: Path | None = None
    dbt_target: str | None = None
    # A sync cycle builds only the replicas whose staging tables changed; every N-th cycle
    # builds everything (0: only with `oracdc sync --all`; docs/dbt.md).
    dbt_full_build_every: int = 0
    sync_interval_seconds: float = 60.0
    # a row in <staging_schema>._oracdc_heartbeat after a stream pass, at most this often;
    # 0: none (docs/extraction.md, "Heartbeat")
    heartbeat_interval_seconds: float = 300.0
    notify: Mapping[str, Any] = field(default_factory=dict)

    @property
    def spill_dir(self) -> Path:
        return self.data_dir / "spill"


def load_config(path: Path) -> OracdcConfig:
    """Read and validate ``path``; every problem is a ConfigError naming the key."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"configuration file {path} not found",
            fix="create it (see README 'Configuration') or pass --config PATH",
        ) from None
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise ConfigError(f"{path} is not valid YAML: {' '.join(str(error).split())}") from None
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{path} must hold a mapping of settings")
    return config_from_mapping(raw, base_dir=path.parent.resolve(), path=path)


_DBT_KEYS = frozenset({"project_dir", "target", "full_build_every"})
_TOP_LEVEL_KEYS = {
    "source",
    "tables",
    "exclude",
    "columns",
    "mask_salt_env",
    "number_as",
    "data_dir",
    "staging_schema",
    "error_policy",
    "mining",
    "memory_budget_mb",
    "snapshot_batch_rows",
    "snapshot_mode",
    "snapshot_modes",
    "nls",
    "spark",
    "dbt",
    "sync_interval_seconds",
    "heartbeat_interval_seconds",
    "notify",
}


def config_from_mapping(
    raw: Mapping[str, Any], *, base_dir: Path, path: Path | None = None
) -> OracdcConfig:
    where = str(path) if path else "configuration"
    unknown = sorted(set(raw) - _TOP_LEVEL_KEYS)
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)}",
            fix=f"use only {', '.join(sorted(_TOP_LEVEL_KEYS))}",
        )
    source = _source(raw.get("source"), where, base_dir)
    spark = _mapping(raw.get("spark", {}), "spark", where)
    dbt = _mapping(raw.get("dbt", {}), "dbt", where)
    mining_raw = dict(_mapping(raw.get("mining", {}), "mining", where))
    reader = str(mining_raw.pop("reader", "auto"))
    if reader not in MINING_READERS:
        raise ConfigError(
            f"{where}: mining.reader must be one of {', '.join(MINING_READERS)}; not {reader!r}"
        )
    try:
        mining = MiningSettings(
            **{  # type: ignore[arg-type]
                k: _number(v, f"mining.{k}", where)
                if k == "poll_interval_seconds"
                else int(_number(v, f"mining.{k}", where))
                for k, v in mining_raw.items()
                if not (k == "transaction_retention_scns" and v is None)
            },
            reader=reader,
        )
    except TypeError:
        raise ConfigError(
            f"{where}: unknown key under mining: {sorted(mining_raw)}",
            fix="use window_scns, min_window_scns, max_window_scns, target_rows_per_window, "
            "poll_interval_seconds, transaction_retention_scns, reader",
        ) from None
    if not 0 < mining.min_window_scns <= mining.window_scns <= mining.max_window_scns:
        raise ConfigError(f"{where}: need 0 < min_window_scns <= window_scns <= max_window_scns")
    if mining.transaction_retention_scns == 0:
        raise ConfigError(
            f"{where}: mining.transaction_retention_scns must be positive",
            fix="leave it out (or null) to keep open transactions for ever",
        )
    policy = raw.get("error_policy", "fail")
    if policy not in ERROR_POLICIES:
        raise ConfigError(f"{where}: error_policy must be one of fail, warn, skip; not {policy!r}")
    staging_schema = str(raw.get("staging_schema", "oracdc_staging"))
    if not _SPARK_SCHEMA.match(staging_schema):
        raise ConfigError(
            f"{where}: staging_schema {staging_schema!r} is not a plain lower-case Spark name"
        )
    try:
        nls = NlsSettings.from_json(_mapping(raw.get("nls", {}), "nls", where))
    except ValueError as error:
        raise ConfigError(f"{where}: nls: {error}") from None
    findings = check_nls(nls)
    if findings.refused:
        raise ConfigError(
            f"{where}: nls: {'; '.join(findings.refused)}",
            fix="leave nls out (the defaults lose nothing), or give formats with SYYYY, MM, "
            "DD, HH24, MI, SS, FF and TZH:TZM",
        )
    for warning in findings.warned:
        LOG.warning("%s: nls: %s", where, warning)
    landing = str(spark.get("landing", "auto"))
    if landing not in ("auto", "spark"):
        raise ConfigError(
            f"{where}: spark.landing must be auto or spark, not {landing!r}",
            fix="auto writes Parquet files where the warehouse is reachable; spark always "
            "appends through Spark",
        )
    unknown_dbt = sorted(set(dbt) - _DBT_KEYS)
    if unknown_dbt:
        raise ConfigError(
            f"{where}: unknown key(s) under dbt: {', '.join(unknown_dbt)}",
            fix=f"use {', '.join(sorted(_DBT_KEYS))}",
        )
    full_build_every = dbt.get("full_build_every", 0)
    if (
        isinstance(full_build_every, bool)
        or not isinstance(full_build_every, int)
        or (full_build_every < 0)
    ):
        raise ConfigError(
            f"{where}: dbt.full_build_every must be a whole number of cycles, not "
            f"{full_build_every!r}",
            fix="e.g. 100 for a full dbt build every 100th sync cycle; 0 (the default) for "
            "none but `oracdc sync --all`",
        )
    project_dir = dbt.get("project_dir")
    tables = _tables(raw.get("tables"), raw.get("exclude"), where)
    columns = parse_column_rules(
        raw.get("columns"), raw.get("mask_salt_env"), where, raw.get("number_as")
    )
    snapshot_modes = parse_snapshot_modes(
        raw.get("snapshot_mode"), raw.get("snapshot_modes"), str(source["kind"]), where
    )
    named = [(r.owner, r.table, "columns entry") for r in columns.rules if r.names_one_table]
    named += [(o, t, "snapshot_modes entry") for o, t in snapshot_modes.names]
    for owner, table, what in named:
        if not is_pattern(owner + table) and not tables.matches(owner, table):
            raise ConfigError(
                f"{where}: {what} {owner}.{table} names a table that tables does not select",
                fix=f"add {owner}.{table} to tables, or drop the entry",
            )
    return OracdcConfig(
        path=path,
        source=source,
        tables=tables,
        columns=columns,
        snapshot_modes=snapshot_modes,
        data_dir=_path(raw.get("data_dir", "data"), base_dir),
        staging_schema=staging_schema,
        error_policy=policy,
        mining=mining,
        memory_budget_mb=int(_number(raw.get("memory_budget_mb", 256), "memory_budget_mb", where)),
        snapshot_batch_rows=int(
            _number(raw.get("snapshot_batch_rows", 50_000), "snapshot_batch_rows", where)
        ),
        nls=nls,
        spark_remote=spark.get("remote"),
        spark_master=str(spark.get("master", "local[2]")),
        spark_landing=landing,
        dbt_project_dir=_path(project_dir, base_dir) if project_dir else base_dir,
        dbt_target=dbt.get("target"),
        dbt_full_build_every=full_build_every,
        sync_interval_seconds=_number(
            raw.get("sync_interval_seconds", 60), "sync_interval_seconds", where
        ),
        heartbeat_interval_seconds=_number(
            raw.get("heartbeat_interval_seconds", 300), "heartbeat_interval_seconds", where
        ),
        notify=_mapping(raw.get("notify", {}), "notify", where),
    )


def _source(raw: Any, where: str, base_dir: Path) -> Mapping[str, Any]:
    source = dict(_mapping(raw, "source", where))
    kind = source.get("kind")
    if kind not in SOURCE_KINDS:
        raise ConfigError(
            f"{where}: source.kind must be one of {', '.join(SOURCE_KINDS)}; not {kind!r}"
        )
    if "password" in source:
        raise ConfigError(
            f"{where}: source.password is not allowed: passwords never live in the config file",
            fix="set source.password_env (an environment variable name) or source.password_file "
            "(a file readable by its owner only) or source.wallet_dir",
        )
    if kind == "oracle":
        for key in ("dsn", "user"):
            if not source.get(key):
                raise ConfigError(f"{where}: source.{key} is required for kind oracle")
        if not any(source.get(k) for k in ("password_env", "password_file")):
            # python-oracledb's thin mode reads no credentials from a wallet: a wallet_dir
            # only carries the TLS material, the password still comes from env or file.
            raise ConfigError(
                f"{where}: source needs password_env or password_file for kind oracle "
                "(wallet_dir adds TLS, it holds no password in thin mode)"
            )
        for key in ("password_file", "wallet_dir"):
            if source.get(key):
                source[key] = str(_path(source[key], base_dir))
        timeout = source.get("connect_timeout_seconds")
        valid = isinstance(timeout, int | float) and not isinstance(timeout, bool) and timeout > 0
        if "connect_timeout_seconds" in source and not valid:
            raise ConfigError(
                f"{where}: source.connect_timeout_seconds must be a positive number of seconds, "
                f"not {timeout!r}"
            )
    if "pdb" in source:
        if kind == "replay" or not isinstance(source["pdb"], str):
            raise ConfigError(
                f"{where}: source.pdb must name a pluggable database (kinds oracle and sim)"
            )
        source["pdb"] = validate_oracle_name(source["pdb"], f"{where}: source.pdb").upper()
    if kind == "replay":
        if not source.get("path"):
            raise ConfigError(f"{where}: source.path (the bundle directory) is required")
        source["path"] = str(_path(source["path"], base_dir))
    return source


def _tables(raw: Any, raw_excluded: Any, where: str) -> TableSelection:
    if not isinstance(raw, list) or not raw:
        raise ConfigError(
            f"{where}: tables must be a non-empty list of OWNER.TABLE entries (wildcards * and ?)"
        )
    if raw_excluded is not None and not isinstance(raw_excluded, list):
        raise ConfigError(
            f"{where}: exclude must be a list of OWNER.TABLE entries (wildcards * and ?)",
            fix="e.g. exclude: [SALES.*_TMP, HR.AUDIT_LOG]",
        )
    patterns = _table_patterns(raw, "table", where)
    excluded = _table_patterns(raw_excluded or [], "exclude", where)
    for owner, table in patterns:
        named = "*" not in owner + table and "?" not in owner + table
        if named and _any_matches(excluded, owner, table):
            raise ConfigError(
                f"{where}: exclude removes {owner}.{table}, which tables names explicitly",
                fix=f"drop {owner}.{table} from tables, or narrow the exclude entry",
            )
    return TableSelection(patterns, excluded)


def _table_patterns(raw: list[Any], what: str, where: str) -> tuple[tuple[str, str], ...]:
    patterns: list[tuple[str, str]] = []
    for entry in raw:
        text = str(entry).strip()
        owner, dot, table = text.partition(".")
        if not dot or not _PATTERN.match(owner) or not _PATTERN.match(table):
            raise ConfigError(
                f"{where}: {what} entry {text!r} is not OWNER.TABLE (letters, digits, _ $ #, * ?)"
            )
        patterns.append((owner.upper(), table.upper()))
    return tuple(patterns)


def validate_oracle_name(name: str, what: str) -> str:
    """Return ``name`` if it is a plain Oracle identifier (letters, digits, ``_ $ #``; it
    may then be written into a statement unquoted), else raise ConfigError."""
    if not _ORACLE_NAME.match(name):
        raise ConfigError(f"{what} {name!r} is not a valid Oracle identifier")
    return name


def _mapping(raw: Any, key: str, where: str) -> Mapping[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: {key} must be a mapping")
    return raw


def _number(raw: Any, key: str, where: str) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < 0:
        raise ConfigError(f"{where}: {key} must be a non-negative number, not {raw!r}")
    return float(raw) if isinstance(raw, float) else int(raw)


def _path(raw: Any, base_dir: Path) -> Path:
    candidate = Path(str(raw)).expanduser()
    return candidate if candidate.is_absolute() else (base_dir / candidate).resolve()
