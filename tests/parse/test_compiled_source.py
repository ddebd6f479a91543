"""The C extension's source compiles without a warning under gcc's -Wall -Wextra at -O2 (an
uninitialized read, a signedness slip or a bad format would be undefined behaviour that the
differential tests can miss: the optimizer may drop it on this machine and not on another)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

RUN_ON_BOTH_IMPLEMENTATIONS = False  # it reads the source, not a parser (conftest.py)
SOURCE = Path(__file__).resolve().parents[2] / "extractor" / "parse" / "_compiled.c"
# CPython's method table casts and its struct initializers: noise, not defects.
QUIET = ("-Wno-unused-parameter", "-Wno-cast-function-type", "-Wno-missing-field-initializers")


def test_the_c_source_compiles_without_warnings(tmp_path: Path) -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI needs gcc: the C extension is built there")
        pytest.skip("no gcc here: the extension is optional (docs/parser.md)")
    include = sysconfig.get_paths()["include"]
    command = [compiler, "-O2", "-Wall", "-Wextra", "-Werror", *QUIET, f"-I{include}"]
    built = subprocess.run(
        [*command, "-c", str(SOURCE), "-o", str(tmp_path / "compiled.o")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
