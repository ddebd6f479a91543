"""Masking of a landing batch's masked columns, before it is written (``column_policy``).

Both runners build a batch with the source types first (``change_batch`` / ``snapshot_batch``),
so a value reaches ``masked_text`` in one representation whether it came from a snapshot or a
change: the Python value of its Arrow type. Then:

- ``hash``: the lower-case hex SHA-256 of the salt, a unit separator and the value's text
  (``value_text``). Equal values give equal hashes in every table that uses the same salt, so
  masked columns still join and group; without the salt a value cannot be tested against them.
- ``redact``: the text ``REDACTED_TEXT``.

NULL stays NULL under both masks. The salt comes from an environment variable
(``mask_salt_env``, default ``ORACDC_MASK_SALT``) and is never logged or stored; changing it
changes every hash landed after the change, so keep it for the life of the replicas.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Final

import pyarrow as pa

from extractor.column_policy import MaskKind
from extractor.errors import ConfigError
from extractor.staging_contract import spark_column_name

REDACTED_TEXT: Final = "*****"
MIN_SALT_LENGTH: Final = 16
_SEPARATOR: Final = b"\x1f"


def read_salt(env_name: str) -> bytes:
    """The hash salt from ``env_name``; ConfigError naming the variable (never its value)
    when it is unset or shorter than ``MIN_SALT_LENGTH`` characters."""
    salt = os.environ.get(env_name, "")
    if len(salt) < MIN_SALT_LENGTH:
        state = "is not set" if not salt else f"holds fewer than {MIN_SALT_LENGTH} characters"
        raise ConfigError(
            f"columns masked with hash need a salt: environment variable {env_name} {state}",
            fix=f"export {env_name}=$(python -c 'import secrets; print(secrets.token_hex(32))') "
            "and keep it: another salt gives other hashes",
        )
    return salt.encode("utf-8")


def value_text(value: object) -> str:
    """The text a value is hashed by (the Python value of its Arrow type): strings as they
    are, numbers in plain notation without trailing zeros, dates and times in ISO 8601,
    binary values in hex."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        # plain notation without trailing zeros: a change of scale keeps the hash
        text = format(value, "f")  # exact: no context rounding
        if "." in text:
            text = text.rstrip("0").rstrip(".")
        return "0" if text in ("-0", "0") else text
    if isinstance(value, int | str | timedelta):
        return str(value)
    raise TypeError(f"no masking text for a value of type {type(value).__name__}")


def masked_text(value: object, kind: MaskKind, salt: bytes) -> str | None:
    if value is None:
        return None
    if kind == "redact":
        return REDACTED_TEXT
    digest = hashlib.sha256(salt)
    digest.update(_SEPARATOR)
    digest.update(value_text(value).encode("utf-8"))
    return digest.hexdigest()


def mask_batch(
    data: pa.Table, masks: Mapping[str, MaskKind], salt: bytes, schema: pa.Schema
) -> pa.Table:
    """``data`` (a staging batch with source types) with each masked column replaced by its
    masked text, as ``schema`` (the landed table's staging schema)."""
    if not masks:
        return data
    columns = list(data.columns)
    for oracle_name, kind in masks.items():
        position = data.schema.get_field_index(spark_column_name(oracle_name))
        if position < 0:
            continue  # a column the batch does not have (dropped from the source)
        values = data.column(position).to_pylist()
        masked = [masked_text(v, kind, salt) for v in values]
        columns[position] = pa.chunked_array([pa.array(masked, pa.string())], pa.string())
    return pa.Table.from_arrays(columns, schema=schema)
