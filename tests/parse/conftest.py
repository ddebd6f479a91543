"""Every test in this folder runs twice: against the compiled parser and typer, and against
the pure-Python reference (docs/parser.md, "Compiled and pure-Python implementations").
A module that compares the two itself sets ``RUN_ON_BOTH_IMPLEMENTATIONS = False``."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from extractor.parse import implementation


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    both = getattr(metafunc.module, "RUN_ON_BOTH_IMPLEMENTATIONS", True)
    metafunc.parametrize(
        "parser_implementation",
        ["compiled", "python"] if both else ["compiled"],
        indirect=True,
        scope="module",
    )


@pytest.fixture(scope="module", autouse=True)
def parser_implementation(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "python":
        with implementation.pure_python():
            yield "python"
        return
    if implementation.compiled is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the compiled parser must be built in CI: {implementation.active()}")
        pytest.skip(f"the compiled parser is not built here: {implementation.active()}")
    yield "compiled"
