"""Errors the simulated Oracle raises.

Database errors are raised as real python-oracledb exceptions (``docs/logminer.md`` §5),
so code written for a real Oracle matches them the same way: ``e.args[0].full_code``.
Misuse of the simulator itself (a test asking for something Oracle would not allow in the
way the simulator models it) raises ``extractor.errors.SimUsageError``.
"""

from __future__ import annotations

from typing import NoReturn

import oracledb
import oracledb.errors as _oracledb_errors


class SimOracleError(oracledb.DatabaseError):
    """An ORA- error of the simulated database; ``args[0]`` is an oracledb error object."""


def raise_oracle_error(code: int, message: str) -> NoReturn:
    """Raise ``ORA-<code>: <message>`` as python-oracledb would.

    The error object is built with oracledb's own (private, checked on 26.1.0) ``_Error``
    so ``full_code``, ``code`` and ``message`` look exactly like a server error's.
    Errors oracledb classifies as ``DatabaseError`` are raised as :class:`SimOracleError`
    (a subclass); others (e.g. ORA-01013 -> OperationalError) with oracledb's own class.
    """
    error = _oracledb_errors._Error(f"ORA-{code:05d}: {message}", code=code)
    exc_type = error.exc_type
    if exc_type is oracledb.DatabaseError:
        raise SimOracleError(error)
    raise exc_type(error)
