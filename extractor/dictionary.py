"""The Oracle data dictionary of replicated tables, as the extractor sees it.

The shape follows ALL_TAB_COLUMNS / ALL_CONSTRAINTS and the replay-bundle
`dictionary.json` contract (``docs/replay-bundle.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal, cast

from extractor.errors import DictionaryError

# Data types whose values LogMiner may write after the row's INSERT or UPDATE; and the
# types that do so above a length (extended strings, MAX_STRING_SIZE = EXTENDED).
LOB_TYPES = frozenset({"CLOB", "NCLOB", "BLOB", "XMLTYPE"})
# The hidden, system-generated column ROW ARCHIVAL (In-Database Archiving, Oracle 12c) adds:
# '0' for an active row, anything else for an archived one. Replicated (docs/types.md).
ROW_ARCHIVAL_COLUMN = "ORA_ARCHIVE_STATE"
_STANDARD_MAX_LENGTH = {"VARCHAR2": 4000, "NVARCHAR2": 4000, "RAW": 2000}

SupplementalLogging = Literal["ALL", "PRIMARY KEY", "MINIMAL"]
SUPPLEMENTAL_LOGGING_LEVELS: tuple[SupplementalLogging, ...] = ("ALL", "PRIMARY KEY", "MINIMAL")


@dataclass(frozen=True)
class ColumnDef:
    """One row of ALL_TAB_COLUMNS.

    ``data_type`` is spelled as Oracle spells it (``NUMBER``, ``TIMESTAMP(6)``,
    ``TIMESTAMP(6) WITH TIME ZONE``, ``INTERVAL DAY(2) TO SECOND(6)``, ...).
    ``data_precision`` / ``data_scale`` keep NULL (None) distinct from 0: a plain
    NUMBER has both None, INTEGER has precision None and scale 0.
    """

    name: str
    column_id: int
    data_type: str
    data_length: int | None = None
    data_precision: int | None = None
    data_scale: int | None = None
    nullable: bool = True
    # The Spark type an unbounded NUMBER or a FLOAT lands as when the configuration chooses
    # one (``number_as``): ``DOUBLE`` or ``DECIMAL(38,s)``; None: STRING. Not in the JSON.
    landed_as: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "column_name": self.name,
            "column_id": self.column_id,
            "data_type": self.data_type,
            "data_length": self.data_length,
            "data_precision": self.data_precision,
            "data_scale": self.data_scale,
            "nullable": "Y" if self.nullable else "N",
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> ColumnDef:
        try:
            nullable = raw.get("nullable", "Y")
            if nullable not in ("Y", "N"):
                raise DictionaryError(f"nullable must be 'Y' or 'N', not {nullable!r}")
            return cls(
                name=str(raw["column_name"]),
                column_id=int(raw["column_id"]),
                data_type=str(raw["data_type"]),
                data_length=_optional_int(raw.get("data_length")),
                data_precision=_optional_int(raw.get("data_precision")),
                data_scale=_optional_int(raw.get("data_scale")),
                nullable=nullable == "Y",
            )
        except KeyError as missing:
            raise DictionaryError(f"column entry lacks {missing.args[0]!r}: {dict(raw)}") from None


_LENGTH_TYPES = frozenset({"CHAR", "NCHAR", "VARCHAR2", "VARCHAR", "NVARCHAR2", "RAW", "UROWID"})


def oracle_type_text(column: ColumnDef) -> str:
    """The column's type as Oracle DDL spells it: ``NUMBER(10,2)``, ``VARCHAR2(40)``, ``DATE``."""
    data_type = column.data_type.upper()
    if data_type == "NUMBER":
        if column.data_precision is None and column.data_scale is None:
            return "NUMBER"
        precision = "*" if column.data_precision is None else str(column.data_precision)
        return f"NUMBER({precision},{column.data_scale or 0})"
    if data_type == "FLOAT" and column.data_precision is not None:
        return f"FLOAT({column.data_precision})"
    if data_type in _LENGTH_TYPES and column.data_length is not None:
        return f"{data_type}({column.data_length})"
    return data_type


@dataclass(frozen=True)
class TableDef:
    """A replicated table: its columns in COLUMN_ID order, its primary key and logging."""

    owner: str
    name: str
    columns: tuple[ColumnDef, ...]
    primary_key: tuple[str, ...] = ()
    supplemental_logging: SupplementalLogging = "ALL"
    # Keyed by ROWID whatever these columns say: set when a column policy leaves out the
    # LOB/LONG columns that make the source table ROWID-keyed (keys.py). Not in the JSON.
    keyed_by_rowid: bool = False

    @property
    def qualified_name(self) -> str:
        """``OWNER.TABLE`` as used in snapshot file names and log messages."""
        return f"{self.owner}.{self.name}"

    @cached_property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @cached_property
    def column_name_set(self) -> frozenset[str]:
        return frozenset(self.column_names)

    @cached_property
    def has_lob_columns(self) -> bool:
        """A CLOB, NCLOB, BLOB or XMLTYPE column, or an extended string (VARCHAR2 or
        NVARCHAR2 over 4000 bytes, RAW over 2000): LogMiner may write such a row's values
        after its INSERT or UPDATE, which it then shows without the ROWID
        (docs/logminer.md §3)."""
        return any(
            c.data_type.upper() in LOB_TYPES
            or (c.data_length or 0) > _STANDARD_MAX_LENGTH.get(c.data_type.upper(), 1 << 62)
            for c in self.columns
        )

    def column(self, name: str) -> ColumnDef:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"{self.qualified_name} has no column {name!r}")

    def has_column(self, name: str) -> bool:
        return any(c.name == name for c in self.columns)

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "table_name": self.name,
            "supplemental_logging": self.supplemental_logging,
            "primary_key": list(self.primary_key),
            "columns": [c.to_json() for c in self.columns],
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> TableDef:
        try:
            logging_level = raw.get("supplemental_logging", "ALL")
            if logging_level not in SUPPLEMENTAL_LOGGING_LEVELS:
                raise DictionaryError(
                    f"supplemental_logging must be one of {SUPPLEMENTAL_LOGGING_LEVELS}, "
                    f"not {logging_level!r}"
                )
            columns = tuple(
                sorted((ColumnDef.from_json(c) for c in raw["columns"]), key=lambda c: c.column_id)
            )
            table = cls(
                owner=str(raw["owner"]),
                name=str(raw["table_name"]),
                columns=columns,
                primary_key=tuple(str(k) for k in raw.get("primary_key", [])),
                supplemental_logging=cast(SupplementalLogging, logging_level),
            )
        except KeyError as missing:
            raise DictionaryError(f"table entry lacks {missing.args[0]!r}") from None
        for key in table.primary_key:
            if not table.has_column(key):
                raise DictionaryError(f"{table.qualified_name}: primary key column {key!r} unknown")
        return table


def _optional_int(value: Any) -> int | None:
    return None if value is None else int(value)
