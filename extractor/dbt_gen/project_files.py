"""Plan and write the generated dbt files of a list of tables, keeping hand-edited files."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from extractor.dbt_gen.fingerprint import CommentStyle, edited_by_hand, with_header
from extractor.dbt_gen.model_sql import replica_model_path_name, replica_model_sql
from extractor.dbt_gen.report import FileAction, FileChange, GenerationReport
from extractor.dbt_gen.schema_yaml import replica_schema_yaml, staging_sources_yaml
from extractor.dictionary import TableDef
from extractor.errors import GenerationError
from extractor.staging_contract import replica_model_name

STAGING_DIR = Path("models/staging")
REPLICA_DIR = Path("models/replica")
SOURCES_FILE = STAGING_DIR / "_sources.yml"


@dataclass(frozen=True)
class GeneratedFile:
    """A file the generator owns: project-relative path and full content (header included)."""

    relative_path: Path
    content: str


def _generated(relative_path: Path, body: str, style: CommentStyle) -> GeneratedFile:
    return GeneratedFile(relative_path, with_header(body, style))


def plan_project_files(tables: Sequence[TableDef]) -> tuple[GeneratedFile, ...]:
    """Every file the generator writes for ``tables``, in a stable order."""
    if not tables:
        raise GenerationError(
            "no tables to generate dbt files for", fix="select tables to replicate"
        )
    names = [replica_model_name(t.owner, t.name) for t in tables]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise GenerationError(
            f"tables map to the same replica model name: {', '.join(duplicates)}",
            fix="list each Oracle table once",
        )
    files = [_generated(SOURCES_FILE, staging_sources_yaml(tables), "yaml")]
    for table in sorted(tables, key=lambda t: (t.owner, t.name)):
        model_name = replica_model_name(table.owner, table.name)
        files.append(
            _generated(
                REPLICA_DIR / replica_model_path_name(table), replica_model_sql(table), "jinja"
            )
        )
        files.append(
            _generated(REPLICA_DIR / f"{model_name}.yml", replica_schema_yaml(table), "yaml")
        )
    return tuple(files)


def _decide(existing: str | None, wanted: str, *, force: bool) -> FileAction:
    if existing is None:
        return FileAction.CREATE
    if existing == wanted:
        return FileAction.UNCHANGED
    if edited_by_hand(existing):
        return FileAction.OVERWRITE_EDITED if force else FileAction.KEEP_EDITED
    return FileAction.UPDATE


def _diff(path: Path, existing: str | None, wanted: str) -> str:
    return "".join(
        difflib.unified_diff(
            (existing or "").splitlines(keepends=True),
            wanted.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def generate_project_files(
    tables: Sequence[TableDef], project_dir: Path, *, force: bool = False, dry_run: bool = False
) -> GenerationReport:
    """Write the staging sources YAML, the replica models and their schema YAML of ``tables``.

    A file edited by hand (its content no longer matches the hash in its header, or it has no
    header) is kept unless ``force``; ``dry_run`` writes nothing and reports what would change.
    """
    changes = []
    for generated in plan_project_files(tables):
        path = project_dir / generated.relative_path
        try:
            existing = path.read_text(encoding="utf-8") if path.exists() else None
        except OSError as error:
            raise GenerationError(f"cannot read {path}: {error}") from error
        action = _decide(existing, generated.content, force=force)
        diff = (
            ""
            if action is FileAction.UNCHANGED
            else _diff(generated.relative_path, existing, generated.content)
        )
        changes.append(FileChange(path=path, action=action, diff=diff))
        if action.writes and not dry_run:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(generated.content, encoding="utf-8")
            except OSError as error:
                raise GenerationError(
                    f"cannot write {path}: {error}", fix="check the project directory is writable"
                ) from error
    return GenerationReport(project_dir=project_dir, changes=tuple(changes), dry_run=dry_run)
