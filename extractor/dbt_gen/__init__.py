"""``oracdc generate``: the dbt files of the replicated tables, written from the Oracle dictionary.

The core is :func:`generate_project_files`; the command line lives in ``extractor.cli.generate``.
"""

from __future__ import annotations

from extractor.dbt_gen.project_files import generate_project_files, plan_project_files
from extractor.dbt_gen.report import FileAction, FileChange, GenerationReport
from extractor.errors import GenerationError

__all__ = [
    "FileAction",
    "FileChange",
    "GenerationError",
    "GenerationReport",
    "generate_project_files",
    "plan_project_files",
]
