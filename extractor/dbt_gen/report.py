"""What a generation run did (or, in a dry run, would do) to each file."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path


class FileAction(enum.Enum):
    CREATE = "create"
    UPDATE = "update"
    UNCHANGED = "unchanged"
    KEEP_EDITED = "keep-edited"
    OVERWRITE_EDITED = "overwrite-edited"

    @property
    def writes(self) -> bool:
        return self in (FileAction.CREATE, FileAction.UPDATE, FileAction.OVERWRITE_EDITED)


@dataclass(frozen=True)
class FileChange:
    """One generated file: where, what happens to it, and the unified diff of the change."""

    path: Path
    action: FileAction
    diff: str = ""

    def describe(self, project_dir: Path) -> str:
        relative = (
            self.path.relative_to(project_dir)
            if self.path.is_relative_to(project_dir)
            else self.path
        )
        note = {
            FileAction.KEEP_EDITED: " (edited by hand; kept, --force overwrites)",
            FileAction.OVERWRITE_EDITED: " (edited by hand; overwritten by --force)",
        }.get(self.action, "")
        return f"{self.action.value:<16} {relative}{note}"


@dataclass(frozen=True)
class GenerationReport:
    project_dir: Path
    changes: tuple[FileChange, ...]
    dry_run: bool

    def with_action(self, action: FileAction) -> tuple[FileChange, ...]:
        return tuple(c for c in self.changes if c.action is action)

    @property
    def written(self) -> tuple[FileChange, ...]:
        """Files written (in a dry run: files that would be written)."""
        return tuple(c for c in self.changes if c.action.writes)

    @property
    def kept_edited(self) -> tuple[FileChange, ...]:
        return self.with_action(FileAction.KEEP_EDITED)

    def lines(self) -> list[str]:
        return [change.describe(self.project_dir) for change in self.changes]
