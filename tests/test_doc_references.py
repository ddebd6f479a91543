"""Every document the code, the macros, the scripts and the docs cite exists in the repository.

A reference is any Markdown file path in a source, SQL, YAML, shell or Markdown file. It must
name a file as written from the repository root (``docs/dbt.md``) or from the citing file's
folder (``keys.md`` inside ``docs/``); a bare ``architecture.md`` in ``extractor/`` fails,
as does anything outside the repository.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CITING = (".py", ".sql", ".yml", ".yaml", ".sh", ".md", ".toml", ".cfg")
REFERENCE = re.compile(r"(?<![\w/.-])((?:\.\./|/)?[\w./-]*[\w-]+\.md)\b")
# Names that are not references to our documents (a file the code writes, an example URL).
NOT_REFERENCES = frozenset({"README.md"})


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [
        ROOT / name
        for name in listed
        if name.endswith(CITING) and (ROOT / name).is_file() and ROOT / name != Path(__file__)
    ]


def _broken_references(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    broken = []
    for number, line in enumerate(text.splitlines(), start=1):
        for reference in REFERENCE.findall(line):
            if "://" in line and f"://{reference}" in line:
                continue
            if reference in NOT_REFERENCES and (ROOT / reference).exists():
                continue
            candidates = [ROOT / reference, path.parent / reference]
            if reference.startswith("/") or not any(c.resolve().is_file() for c in candidates):
                broken.append(f"{path.relative_to(ROOT)}:{number}: {reference}")
                continue
            if not any(c.resolve().is_relative_to(ROOT) for c in candidates if c.exists()):
                broken.append(f"{path.relative_to(ROOT)}:{number}: {reference} (outside)")
    return broken


def test_every_cited_document_exists_in_the_repository() -> None:
    broken = [b for path in _tracked_files() for b in _broken_references(path)]
    assert broken == []


def test_the_check_finds_a_reference_to_a_missing_document(tmp_path: Path) -> None:
    citing = ROOT / "extractor" / "_doc_reference_probe.py"
    citing.write_text('"""See architecture.md §2 and docs/dbt.md."""\n', encoding="utf-8")
    try:
        assert _broken_references(citing) == [
            "extractor/_doc_reference_probe.py:1: architecture.md"
        ]
    finally:
        citing.unlink()


def test_the_check_finds_a_reference_outside_the_repository() -> None:
    md = ".md"  # spelt apart: this file cites no document itself
    citing = ROOT / "docs" / f"_doc_reference_probe{md}"
    citing.write_text(
        f"Read /work/shared/docs/replay-bundle{md} and ../../x{md}\n", encoding="utf-8"
    )
    try:
        assert _broken_references(citing) == [
            f"docs/_doc_reference_probe{md}:1: /work/shared/docs/replay-bundle{md}",
            f"docs/_doc_reference_probe{md}:1: ../../x{md}",
        ]
    finally:
        citing.unlink()
