"""The slice of DB-API 2.0 (as python-oracledb implements it) the Oracle source uses.

Both ``oracledb.Connection`` and the simulator's ``SimConnection`` satisfy it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol


class Cursor(Protocol):
    arraysize: int
    prefetchrows: int
    outputtypehandler: Any

    @property
    def description(self) -> Sequence[Any] | None: ...

    def execute(self, statement: str, parameters: Mapping[str, Any] | None = None) -> Any: ...

    def callproc(
        self,
        name: str,
        parameters: Sequence[Any] | None = None,
        keyword_parameters: Mapping[str, Any] | None = None,
    ) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchmany(self, size: int = ...) -> list[Any]: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...

    def var(self, typ: Any, size: int = ..., arraysize: int = ...) -> Any: ...

    def close(self) -> None: ...


class Connection(Protocol):
    def cursor(self) -> Any: ...

    def close(self) -> None: ...
