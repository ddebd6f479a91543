"""The canonical digests ``oracdc verify`` compares: the one definition both sides follow.

Every value is reduced to a *column digest*, the upper-case hex SHA-256 of its canonical
text (UTF-8), or of its bytes for binary columns, or ``-`` for NULL. The canonical text of a
value in its ``spark_types`` representation:

| Spark type       | canonical text                                               |
|------------------|--------------------------------------------------------------|
| STRING           | the text itself (number text, interval text, ISO timestamps) |
| DECIMAL(p,s)     | canonical decimal text: ``1.50`` -> ``1.5``, ``0.5`` -> ``0.5``|
| FLOAT / DOUBLE   | IEEE bits of the double, 16 hex digits (``3FF8000000000000``), |
|                  | ``-0.0`` as ``0.0``, every NaN as ``NaN``                    |
| TIMESTAMP_NTZ    | ``YYYY-MM-DD HH:MM:SS.ffffff``                               |
| TIMESTAMP        | the same, of the instant in UTC                              |
| BINARY           | (the bytes are hashed directly)                              |

A *row digest* hashes the column digests in column order, in groups of
:data:`GROUP_SIZE` (one Oracle VARCHAR2 of 4000 bytes holds 60 digests and their commas):
``sha256(",".join(sha256(",".join(group)) for group))``. The *key digest* is
``sha256(",".join(key column digests))`` and its first three hex digits are the key's
*bucket* (0..4095): chunks and samples are bucket ranges, the same on both sides.
Oracle (``queries.VERIFY_*``) and Spark (:mod:`extractor.verify.replica_digest`) compute
these in SQL; this module computes them in Python (the simulator, replay bundles, tests).
"""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Final

from extractor.values import canonical_decimal_text

NULL_DIGEST: Final = "-"
GROUP_SIZE: Final = 60
BUCKET_COUNT: Final = 4096
BUCKET_HEX_DIGITS: Final = 3


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest().upper()


def canonical_text(spark_type: str, value: object) -> str:
    """The canonical text of a non-NULL, non-binary value of ``spark_type``."""
    if spark_type.startswith("DECIMAL"):
        return canonical_decimal_text(value if isinstance(value, Decimal) else Decimal(str(value)))
    if spark_type in ("FLOAT", "DOUBLE"):
        return float_text(float(str(value)) if not isinstance(value, float) else value)
    if spark_type in ("TIMESTAMP", "TIMESTAMP_NTZ") and isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return f"{value:%Y-%m-%d %H:%M:%S}.{value.microsecond:06d}"
    return str(value)


def float_text(value: float) -> str:
    """The IEEE 754 bits of a double as 16 upper-case hex digits, big-endian (``1.5`` ->
    ``3FF8000000000000``); ``-0.0`` as ``0.0``; every NaN as ``NaN``.

    Exact on every side without decimal formatting, whose rounding differs between Java
    (Spark), Oracle and Python: Spark reads the bits with ``Double.doubleToLongBits``, Oracle
    with ``UTL_RAW.CAST_FROM_BINARY_DOUBLE``. A BINARY_FLOAT is widened to double first
    (exactly)."""
    if math.isnan(value):
        return "NaN"
    if value == 0:
        value = 0.0
    return struct.pack(">d", value).hex().upper()


def column_digest(spark_type: str, value: object) -> str:
    """The column digest of one value (its ``spark_types`` representation)."""
    if value is None:
        return NULL_DIGEST
    if spark_type == "BINARY":
        return sha256_hex(bytes(value))  # type: ignore[call-overload]
    return sha256_hex(canonical_text(spark_type, value).encode("utf-8"))


def key_text(spark_type: str, value: object) -> str | None:
    """How a key value is shown in reports (binary keys in upper-case hex)."""
    if value is None:
        return None
    if spark_type == "BINARY":
        raw: bytes = bytes(value)  # type: ignore[call-overload]
        return raw.hex().upper()
    return canonical_text(spark_type, value)


def combine(digests: Sequence[str]) -> str:
    """``sha256(",".join(digests))``: the key digest, or one group of a row digest."""
    return sha256_hex(",".join(digests).encode("ascii"))


def groups(digests: Sequence[str]) -> list[str]:
    """The group digests of a row's column digests (groups of :data:`GROUP_SIZE`)."""
    return [combine(digests[i : i + GROUP_SIZE]) for i in range(0, len(digests), GROUP_SIZE)]


def bucket_of(key_digest: str) -> int:
    """The key's bucket, 0..BUCKET_COUNT-1: the first three hex digits of its digest."""
    return int(key_digest[:BUCKET_HEX_DIGITS], 16)
