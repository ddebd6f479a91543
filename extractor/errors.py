"""The base of every error the product raises on purpose.

Each carries what a user needs to act: what failed, on which object, and the fix.
The command line prints ``str(error)`` on one line (plus the fix) unless ``--debug``.
"""

from __future__ import annotations


class OracdcError(Exception):
    """An expected failure with a message for the user and, when known, the fix."""

    def __init__(self, message: str, *, fix: str | None = None) -> None:
        super().__init__(message)
        self.fix = fix

    def one_line(self) -> str:
        text = " ".join(str(self).split())
        return f"{text} (fix: {self.fix})" if self.fix else text
