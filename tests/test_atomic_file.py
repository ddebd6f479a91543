"""extractor.atomic_file: the target is replaced whole, or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from extractor.atomic_file import atomic_text_writer, write_text_atomically


def test_the_new_text_replaces_the_file_and_no_temporary_stays(tmp_path: Path) -> None:
    target = tmp_path / "sub" / "status.json"
    write_text_atomically(target, "old")
    write_text_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in target.parent.iterdir()] == ["status.json"]


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "checkpoint.json"
    write_text_atomically(target, "old")
    with pytest.raises(RuntimeError), atomic_text_writer(target) as handle:
        handle.write("half of the new")
        raise RuntimeError("crash")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.json"]
