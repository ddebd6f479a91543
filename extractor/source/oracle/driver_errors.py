"""Reading python-oracledb errors: match on ``e.args[0].full_code`` (reference §5)."""

from __future__ import annotations

from typing import NoReturn

from extractor.errors import SourceConnectionError, SourceQueryError

# Codes that mean the session is gone: ORA end-of-file / not connected, thin-mode DPY codes.
_CONNECTION_LOST = frozenset(
    {"ORA-03113", "ORA-03114", "ORA-03135", "ORA-02396", "DPY-4011", "DPY-1001", "DPY-4024"}
)


def full_code(error: BaseException) -> str | None:
    """``'ORA-01291'`` for a python-oracledb error (real or simulated); None otherwise."""
    args = getattr(error, "args", ())
    if args and hasattr(args[0], "full_code"):
        return str(args[0].full_code)
    return None


def error_message(error: BaseException) -> str:
    """The message without thin mode's appended help URL."""
    args = getattr(error, "args", ())
    text = str(args[0].message) if args and hasattr(args[0], "message") else str(error)
    return text.split("\nHelp:")[0].strip()


def is_connection_lost(error: BaseException) -> bool:
    code = full_code(error)
    return code in _CONNECTION_LOST or (code is not None and code.startswith("DPY-6"))


def raise_unhandled(error: BaseException, statement: str) -> NoReturn:
    """Re-raise an Oracle error no caller handles as one of ours, naming the statement."""
    code = full_code(error) or type(error).__name__
    if is_connection_lost(error):
        raise SourceConnectionError(
            f"connection to Oracle lost during {statement} ({code}): {error_message(error)}",
            fix="check the database and network, then rerun: the extractor resumes from its "
            "checkpoint",
        ) from error
    raise SourceQueryError(statement, code, error_message(error)) from error
