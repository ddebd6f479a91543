"""Which implementation of the parser's hot path runs: the compiled one or pure Python.

The C extension ``extractor.parse._compiled`` is built at install time when a C compiler is
there (``setup.py``; optional). It reads the common statement and literal shapes and
declines the rest, which the pure-Python reference (``redo_parser``, ``value_typing``) then
reads: both give the same result on every statement (``tests/parse/test_compiled_parser.py``).
``ORACDC_PARSER=python`` in the environment forces the reference.
"""

from __future__ import annotations

import importlib
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from decimal import Decimal
from types import ModuleType

from extractor.parse.literals import IS_NULL_LITERAL, UNSUPPORTED, Literal
from extractor.parse.redo_statement import ParsedRedo

_log = logging.getLogger(__name__)

# The reference's shared empty mapping for the image a statement does not carry.
NO_VALUES: dict[str, Literal] = {}


# What this code calls in the extension: one built from an older checkout lacks some.
FUNCTIONS = (
    "configure",
    "parse_strict",
    "typed_image",
    "parse_typed",
    "packed_redo_position",
    "columns_of",
    "attributes_of",
    "arrow_buffers",
    "jsonl_lines",
)


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get("ORACDC_PARSER", "").strip().lower() == "python":
        return None, "ORACDC_PARSER=python"
    try:
        module = importlib.import_module("extractor.parse._compiled")
    except ImportError as error:
        return None, f"the C extension is not built ({error})"
    missing = [name for name in FUNCTIONS if not hasattr(module, name)]
    if missing:
        return None, (
            f"the C extension was built from older code (no {', '.join(missing)}): "
            "rebuild it with ./scripts/setup.sh"
        )
    module.configure(ParsedRedo, Literal, IS_NULL_LITERAL, NO_VALUES, UNSUPPORTED, Decimal, UTC)
    return module, "C extension"


compiled, _reason = _load()
_log.info("SQL_REDO parser: %s (%s)", "compiled" if compiled else "pure Python", _reason)


def active() -> str:
    """``compiled`` or ``pure Python``, and why, as ``oracdc --version`` prints it."""
    return f"compiled ({_reason})" if compiled else f"pure Python ({_reason})"


@contextmanager
def pure_python() -> Iterator[None]:
    """Run the reference only, inside the block (for tests and benchmarks)."""
    global compiled
    saved = compiled
    compiled = None
    try:
        yield
    finally:
        compiled = saved
