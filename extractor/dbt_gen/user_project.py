"""A new dbt project of the user's that installs the ``oracle_cdc`` package (``oracdc init``).

The directory gets ``oracdc.yml`` (the extractor's settings; commented, for ``kind:
oracle``), ``dbt_project.yml`` (dispatch order, the package's variables, ``models/replica``
for the generated models and ``models/views`` for the user's own), ``packages.yml`` (the
installed package by its local path), ``profiles.yml`` (the package's targets: embedded,
connect, thrift) and ``.gitignore``. Every ``oracdc`` command run in that directory then finds
its config, its dbt project and its profiles with no flags. The package's own root is never a
place for the user's models.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import yaml

from extractor.errors import GenerationError
from extractor.lakehouse.dbt_runner import dbt_package_dir

PACKAGE_NAME = "oracle_cdc"
# names a root project cannot take: the package's, dbt's own and the adapter's packages
_TAKEN_NAMES = frozenset({PACKAGE_NAME, "dbt", "dbt_spark"})
MODEL_DIRECTORIES = ("models/replica", "models/views")

DBT_PROJECT = """\
# The dbt project of your replicas (written by `oracdc init`; yours to edit).
# `oracdc generate` and `oracdc sync` write one model per table to models/replica;
# put your own models on top of the replicas in models/views (docs/dbt.md).
name: {name}
version: "0.1.0"
config-version: 2
profile: oracle_cdc
model-paths: ["models"]
clean-targets: ["target", "dbt_packages"]

flags:
  send_anonymous_usage_stats: false

vars:
  # where the extractor lands the change rows: staging_schema of oracdc.yml (oracdc sync
  # passes it; set here for dbt run by hand)
  oracle_cdc__staging_schema: {staging_schema}
  # other settings of the package (soft deletes, bucket layout, merge-on-read replicas,
  # file format): docs/dbt.md

# the package's merge strategy and macros come before dbt's own
dispatch:
  - macro_namespace: dbt
    search_order: ["{name}", "oracle_cdc", "dbt"]
# models/views: plain dbt models, views by default (dbt's default materialization)
"""

PACKAGES = """\
# The oracle_cdc dbt package, as installed with oracdc (`oracdc init` wrote its path;
# `oracdc init --packages-only` points it at the installed one again, keeping the others).
packages:
  - local: {package}
"""

ORACLE_CONFIG = """\
# oracdc settings (docs/configuration.md). Every oracdc command run in this directory
# reads this file; the dbt project is this directory.
source:
  kind: oracle
  dsn: dbhost:1521/ORCLCDB          # host:port/service; the CDB root's for a common user
  user: C##ORACDC
  password_env: ORACDC_PASSWORD     # or password_file: /run/secrets/oracdc (mode 0600)
  # pdb: ORCLPDB1                   # with the root's service: the PDB holding the tables
  # wallet_dir: /path/to/wallet     # TLS
tables:                             # OWNER.TABLE, wildcards * and ? allowed
  - HR.EMPLOYEES
  # - SALES.*
# exclude: [SALES.*_TMP]            # tables the patterns above must not take
# columns:                          # columns that never land, or land masked
#   HR.EMPLOYEES: {{exclude: [SALARY], mask: {{EMAIL: hash}}}}  # salt: $ORACDC_MASK_SALT
data_dir: data                      # checkpoint, spill files, embedded metastore + warehouse
staging_schema: {staging_schema}
error_policy: fail                  # fail | warn | skip, for rows that cannot be applied
# snapshot_mode: initial            # no_data | initial_only | when_needed (docs/extraction.md)
# number_as: string                 # plain NUMBER, FLOAT: double | decimal(38,s) (docs/types.md)
# heartbeat_interval_seconds: 300   # 0: no heartbeat rows
# mining: {{window_scns: 20000, poll_interval_seconds: 5}}
# sync_interval_seconds: 60
# spark: {{remote: sc://host:15002}}  # land through a Spark Connect server
dbt:
  project_dir: .
  # target: embedded                # embedded | connect | thrift (profiles.yml)
  # full_build_every: 100           # a full dbt build every 100th sync cycle
"""

GITIGNORE = """\
data/
target/
dbt_packages/
logs/
"""

DEFAULT_STAGING_SCHEMA = "oracdc_staging"
PROJECT_FILES = ("oracdc.yml", "dbt_project.yml", "packages.yml", "profiles.yml")


def project_name(directory: Path) -> str:
    """A dbt project name from the directory's name (letters, digits, underscores)."""
    name = re.sub(r"[^a-z0-9_]", "_", directory.resolve().name.lower()).strip("_") or "replicas"
    if not name[0].isalpha():
        name = f"project_{name}"
    return f"{name}_project" if name in _TAKEN_NAMES else name


def write_user_project(
    directory: Path, *, config: str | None = None, staging_schema: str = DEFAULT_STAGING_SCHEMA
) -> list[Path]:
    """Write the project's files into ``directory`` (created when missing); ``config`` is the
    oracdc.yml text (default: the commented ``kind: oracle`` one). Refuses, before writing
    anything, when one of the files is already there. Returns the files written."""
    directory = directory.resolve()
    files = {
        "oracdc.yml": config
        if config is not None
        else ORACLE_CONFIG.format(staging_schema=staging_schema),
        "dbt_project.yml": DBT_PROJECT.format(
            name=project_name(directory), staging_schema=staging_schema
        ),
        "packages.yml": packages_yml(),
    }
    existing = [n for n in PROJECT_FILES if (directory / n).exists()]
    if existing:
        raise GenerationError(
            f"{directory} already holds {', '.join(existing)}",
            fix="choose a new directory, or move those files away first",
        )
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
        written.append(directory / name)
    shutil.copy(dbt_package_dir() / "profiles.yml", directory / "profiles.yml")
    written.append(directory / "profiles.yml")
    if _add_ignored(directory / ".gitignore"):
        written.append(directory / ".gitignore")
    for folder in MODEL_DIRECTORIES:
        (directory / folder).mkdir(parents=True, exist_ok=True)
        keep = directory / folder / ".gitkeep"
        keep.touch()
        written.append(keep)
    return written


def packages_yml() -> str:
    """packages.yml naming the installed oracle_cdc package by its absolute path."""
    return PACKAGES.format(package=dbt_package_dir())


def repoint_package(directory: Path) -> None:
    """Point an existing project's packages.yml at the installed oracle_cdc package (after
    oracdc moved or was reinstalled), keeping every other package it lists."""
    if not (directory / "dbt_project.yml").is_file():
        raise GenerationError(
            f"no dbt project in {directory} (no dbt_project.yml)",
            fix=f"run `oracdc init {directory}` first",
        )
    path = directory / "packages.yml"
    if not path.exists():
        path.write_text(packages_yml(), encoding="utf-8")
        return
    try:
        listed = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as error:
        raise GenerationError(f"{path} is not YAML ({error})") from None
    entries = listed.get("packages") if isinstance(listed, dict) else None
    if not isinstance(entries, list):
        raise GenerationError(f"{path} has no packages list", fix="fix or remove the file")
    kept = [e for e in entries if not _is_this_package(e, directory)]
    listed["packages"] = [*kept, {"local": str(dbt_package_dir())}]
    path.write_text(yaml.safe_dump(listed, sort_keys=False), encoding="utf-8")


def _is_this_package(entry: object, directory: Path) -> bool:
    """A ``local`` entry naming oracle_cdc, or a path that is gone (where it was)."""
    if not isinstance(entry, dict) or "local" not in entry:
        return False
    target = Path(str(entry["local"]))
    target = target if target.is_absolute() else directory / target
    project = target / "dbt_project.yml"
    if not project.is_file():
        return True
    try:
        name = (yaml.safe_load(project.read_text(encoding="utf-8")) or {}).get("name")
    except (yaml.YAMLError, AttributeError):
        return False
    return bool(name == PACKAGE_NAME)


def _add_ignored(path: Path) -> bool:
    """Add the project's generated directories to ``path`` (created when missing); True
    when the file changed."""
    present = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    missing = [line for line in GITIGNORE.splitlines() if line not in present]
    if not missing:
        return False
    prefix = "" if not present or present[-1] == "" else "\n"
    with path.open("a", encoding="utf-8") as handle:
        handle.write(prefix + "\n".join(missing) + "\n")
    return True
