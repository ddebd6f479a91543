"""The ``*`` / ``?`` name patterns of oracdc.yml and the command lines (``OWNER.TABLE``,
column names), matched in upper case: defined once for every setting that takes them."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable


def is_pattern(text: str) -> bool:
    """True when ``text`` holds a wildcard (a name without one must exist)."""
    return "*" in text or "?" in text


def name_matches(patterns: Iterable[str], name: str) -> bool:
    """True when ``name`` (upper-cased) matches one of the upper-case ``patterns``."""
    upper = name.upper()
    return any(fnmatch.fnmatchcase(upper, pattern) for pattern in patterns)


def table_matches(owner_pattern: str, table_pattern: str, owner: str, table: str) -> bool:
    """True when ``OWNER.TABLE`` matches the upper-case pattern pair."""
    return name_matches((owner_pattern,), owner) and name_matches((table_pattern,), table)
