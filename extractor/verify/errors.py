"""Errors of ``oracdc verify``."""

from __future__ import annotations

from extractor.errors import OracdcError


class VerifyError(OracdcError):
    """Verification could not run (not: differences were found)."""
