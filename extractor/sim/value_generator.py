"""Seeded random column values that exercise Oracle's storage and rendering rules."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from decimal import Decimal

from extractor.dictionary import ROW_ARCHIVAL_COLUMN, ColumnDef
from extractor.sim.column_values import OracleTimestamp
from extractor.sim.oracle_types import Kind, column_type

_WORDS = ("alpha", "O'Brien", "x", "zürich", "naïve", "path\\to", "日本", "ÅSA", "100%", "a b")
_NATIONAL = ("阿狸", "Ελλάδα", "Москва", "café", "😀 smile", "plain", "O'Neil")
_OFFSETS = (-600, -330, -300, -180, 60, 120, 330, 345, 540, 780)
_EPOCH = datetime(2020, 1, 1)


class ValueGenerator:
    """Draws values for columns; ``long_value_ratio`` makes some texts long enough to need
    CSF continuation rows (VARCHAR2(4000), CLOB)."""

    def __init__(self, rng: random.Random, *, long_value_ratio: float, null_ratio: float = 0.08):
        self._rng = rng
        self._long_ratio = long_value_ratio
        self._null_ratio = null_ratio

    def value(self, column: ColumnDef) -> object:
        rng = self._rng
        if column.name == ROW_ARCHIVAL_COLUMN:  # ROW ARCHIVAL's: active or archived
            return rng.choice(("0", "1"))
        if column.nullable and rng.random() < self._null_ratio:
            return None
        ctype = column_type(column)
        kind = ctype.kind
        if kind is Kind.NUMBER:
            return self._number(ctype.precision, ctype.scale)
        if kind is Kind.FLOAT:
            return self._number(None, None)
        if kind in (Kind.BINARY_FLOAT, Kind.BINARY_DOUBLE):
            special = rng.random()
            if special < 0.03:
                return rng.choice((float("nan"), float("inf"), float("-inf")))
            return rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-20, 20)
        if kind in (Kind.VARCHAR2, Kind.CLOB, Kind.CHAR):
            return self._text(column, kind, _WORDS)
        if kind in (Kind.NVARCHAR2, Kind.NCLOB, Kind.NCHAR):
            return self._text(column, kind, _NATIONAL)
        if kind is Kind.DATE:
            return self._moment().replace(microsecond=0)
        if kind is Kind.TIMESTAMP:
            return OracleTimestamp(self._moment(), rng.randrange(1_000_000_000))
        if kind in (Kind.TIMESTAMP_TZ, Kind.TIMESTAMP_LTZ):
            zone = timezone(timedelta(minutes=rng.choice(_OFFSETS)))
            moment = self._moment().replace(tzinfo=zone)
            return OracleTimestamp(moment.replace(tzinfo=None), rng.randrange(1_000_000_000),
                                   rng.choice(_OFFSETS))  # fmt: skip
        return rng.randbytes(rng.randint(1, min(column.data_length or 16, 32)))

    def _number(self, precision: int | None, scale: int | None) -> Decimal:
        rng = self._rng
        if precision is None and scale is None:
            shape = rng.random()
            if shape < 0.1:
                return Decimal(rng.randint(1, 999)).scaleb(-rng.randint(20, 60))
            if shape < 0.2:
                return Decimal(rng.randint(1, 999)).scaleb(rng.randint(20, 60))
            return Decimal(rng.randint(-(10**9), 10**9)).scaleb(-rng.randint(0, 6))
        scale = scale or 0
        integer_digits = max(1, (precision or 38) - scale)
        mantissa = rng.randint(
            -(10 ** min(integer_digits, 15)) + 1, 10 ** min(integer_digits, 15) - 1
        )
        # one digit more than the scale keeps, so Oracle's rounding shows
        value = Decimal(mantissa) + Decimal(rng.randint(0, 10 ** max(scale + 1, 1) - 1)).scaleb(
            -max(scale + 1, 1)
        )
        if scale < 0:
            value = Decimal(rng.randint(0, 10 ** (integer_digits + scale) - 1)).scaleb(-scale)
        limit = Decimal(10) ** integer_digits - 1
        return max(min(value, limit), -limit)

    def _text(self, column: ColumnDef, kind: Kind, words: tuple[str, ...]) -> str:
        rng = self._rng
        limit = column.data_length or 4000
        if kind in (Kind.CHAR, Kind.NCHAR):
            return rng.choice(words)[: min(limit, 4)].strip() or "c"
        if rng.random() < 0.03:
            return ""  # stored as NULL
        if rng.random() < self._long_ratio and limit >= 1000:
            size = rng.randint(4100, 9000) if kind in (Kind.CLOB, Kind.NCLOB) else limit - 500
            pieces: list[str] = []
            length = 0
            while length < size:
                word = rng.choice(words)
                pieces.append(word)
                length += len(word) + 1
            return " ".join(pieces)[:size] if kind is not Kind.VARCHAR2 else _fit(pieces, limit)
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
        return text[: max(1, limit // 4)]

    def _moment(self) -> datetime:
        seconds = self._rng.randrange(0, 10 * 365 * 86_400)
        return _EPOCH + timedelta(seconds=seconds, microseconds=self._rng.randrange(1_000_000))


def _fit(pieces: list[str], limit_bytes: int) -> str:
    text = " ".join(pieces)
    excess = len(text.encode("utf-8")) - limit_bytes
    while excess > 0:
        text = text[: len(text) - max(1, excess // 4)]
        excess = len(text.encode("utf-8")) - limit_bytes
    return text
