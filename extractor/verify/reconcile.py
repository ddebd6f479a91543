"""Reconciliation of replicas with the source at one SCN, by digests (``oracdc verify``).

Per table: the row counts of both sides, then, bucket range by bucket range (the chunks), the
key and row digests of both sides (:mod:`extractor.verify.canonical`). A key only in the source
is *missing*, only in the replica *extra*; a key whose row digests differ is *changed*, and
the per-column digests of that chunk name the differing columns. Every difference goes to
``on_difference`` (the ``--out`` file gets them all); the result keeps the first few.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from extractor.dictionary import TableDef
from extractor.verify import canonical
from extractor.verify.digest_rows import BucketRange, DigestRow, key_columns, value_columns

DifferenceKind = Literal["missing", "extra", "changed"]
DEFAULT_CHUNK_ROWS = 1_000_000


class DigestSide(Protocol):
    """One side of a verification (source or replica)."""

    def count(self, table: TableDef) -> int: ...

    def digests(
        self, table: TableDef, buckets: BucketRange, *, per_column: bool = False
    ) -> Iterator[DigestRow]: ...


@dataclass(frozen=True)
class KeyDifference:
    """One key that differs: ``key`` maps key column (Spark name) to its canonical text."""

    table: str
    kind: DifferenceKind
    key: dict[str, str | None]
    columns: tuple[str, ...] = ()

    def describe(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in self.key.items())
        columns = f": {', '.join(self.columns)}" if self.columns else ""
        return f"{self.kind} key ({key}){columns}"

    def to_json(self) -> dict[str, object]:
        return {
            "record": "difference",
            "table": self.table,
            "kind": self.kind,
            "key": self.key,
            "columns": list(self.columns),
        }


@dataclass(frozen=True)
class TableVerification:
    """The outcome for one table."""

    table: str
    scn: int
    source_rows: int
    replica_rows: int
    missing: int
    extra: int
    changed: int
    buckets_checked: int
    examples: tuple[KeyDifference, ...] = field(default_factory=tuple)

    @property
    def sampled(self) -> bool:
        return self.buckets_checked < canonical.BUCKET_COUNT

    @property
    def matches(self) -> bool:
        counts_agree = self.source_rows == self.replica_rows
        return counts_agree and self.missing == self.extra == self.changed == 0

    def to_json(self) -> dict[str, object]:
        return {
            "record": "table",
            "table": self.table,
            "scn": self.scn,
            "matches": self.matches,
            "source_rows": self.source_rows,
            "replica_rows": self.replica_rows,
            "missing": self.missing,
            "extra": self.extra,
            "changed": self.changed,
            "buckets_checked": self.buckets_checked,
            "bucket_count": canonical.BUCKET_COUNT,
        }


@dataclass(frozen=True)
class VerifyOptions:
    sample: float | None = None  # fraction of the key buckets, None: all
    chunk_rows: int = DEFAULT_CHUNK_ROWS
    max_examples: int = 20
    seed: int | None = None


def sample_ranges(fraction: float, rng: random.Random) -> list[BucketRange]:
    """One random window of ``fraction`` of the buckets (wrapping around at the end)."""
    if not 0 < fraction <= 1:
        raise ValueError(f"sample fraction must be in (0, 1], not {fraction}")
    width = max(1, round(fraction * canonical.BUCKET_COUNT))
    if width >= canonical.BUCKET_COUNT:
        return [BucketRange(0, canonical.BUCKET_COUNT - 1)]
    start = rng.randrange(canonical.BUCKET_COUNT)
    end = start + width - 1
    if end < canonical.BUCKET_COUNT:
        return [BucketRange(start, end)]
    return [
        BucketRange(start, canonical.BUCKET_COUNT - 1),
        BucketRange(0, end - canonical.BUCKET_COUNT),
    ]


def split_ranges(ranges: Sequence[BucketRange], rows: int, chunk_rows: int) -> list[BucketRange]:
    """Cut ``ranges`` into chunks expected to hold about ``chunk_rows`` rows each."""
    per_bucket = rows / canonical.BUCKET_COUNT
    chunks: list[BucketRange] = []
    for whole in ranges:
        size = whole.high - whole.low + 1
        pieces = max(1, min(size, math.ceil(size * per_bucket / max(1, chunk_rows))))
        step = math.ceil(size / pieces)
        for low in range(whole.low, whole.high + 1, step):
            chunks.append(BucketRange(low, min(whole.high, low + step - 1)))
    return chunks


def verify_table(
    table: TableDef,
    source: DigestSide,
    replica: DigestSide,
    scn: int,
    options: VerifyOptions = VerifyOptions(),
    on_difference: Callable[[KeyDifference], None] | None = None,
) -> TableVerification:
    """Compare ``table``'s replica with the source; see the module docstring."""
    source_rows = source.count(table)
    replica_rows = replica.count(table)
    rng = random.Random(options.seed)
    whole = [BucketRange(0, canonical.BUCKET_COUNT - 1)]
    ranges = whole if options.sample is None else sample_ranges(options.sample, rng)
    chunks = split_ranges(ranges, max(source_rows, replica_rows), options.chunk_rows)
    tally: dict[DifferenceKind, int] = {"missing": 0, "extra": 0, "changed": 0}
    examples: list[KeyDifference] = []
    for chunk in chunks:
        for difference in _chunk_differences(table, source, replica, chunk):
            tally[difference.kind] += 1
            if len(examples) < options.max_examples:
                examples.append(difference)
            if on_difference is not None:
                on_difference(difference)
    return TableVerification(
        table.qualified_name,
        scn,
        source_rows,
        replica_rows,
        tally["missing"],
        tally["extra"],
        tally["changed"],
        sum(r.high - r.low + 1 for r in ranges),
        tuple(examples),
    )


def _chunk_differences(
    table: TableDef, source: DigestSide, replica: DigestSide, chunk: BucketRange
) -> Iterator[KeyDifference]:
    expected = _by_key(source.digests(table, chunk))
    actual = _by_key(replica.digests(table, chunk))
    names = [k.spark_name for k in key_columns(table)]

    def difference(
        row: DigestRow, kind: DifferenceKind, columns: Sequence[str] = ()
    ) -> KeyDifference:
        return KeyDifference(table.qualified_name, kind, dict(zip(names, row.key, strict=True)),
                             tuple(columns))  # fmt: skip

    changed = [k for k, row in expected.items() if k in actual and actual[k].digests != row.digests]
    changed_columns = _changed_columns(table, source, replica, chunk, changed)
    for key_digest, row in sorted(expected.items(), key=lambda item: _sort_key(item[1])):
        if key_digest not in actual:
            yield difference(row, "missing")
        elif key_digest in changed_columns:
            yield difference(row, "changed", changed_columns[key_digest])
    for key_digest, row in sorted(actual.items(), key=lambda item: _sort_key(item[1])):
        if key_digest not in expected:
            yield difference(row, "extra")


def _changed_columns(
    table: TableDef,
    source: DigestSide,
    replica: DigestSide,
    chunk: BucketRange,
    changed: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    if not changed:
        return {}
    wanted = set(changed)
    names = [c.spark_name for c in value_columns(table)]
    source_rows = _by_key(r for r in source.digests(table, chunk, per_column=True))
    replica_rows = _by_key(r for r in replica.digests(table, chunk, per_column=True))
    result: dict[str, tuple[str, ...]] = {}
    for key_digest in wanted:
        left, right = source_rows.get(key_digest), replica_rows.get(key_digest)
        if left is None or right is None:  # changed again between the two reads
            result[key_digest] = ()
            continue
        result[key_digest] = tuple(
            name for name, a, b in zip(names, left.digests, right.digests, strict=True) if a != b
        )
    return result


def _by_key(rows: Iterable[DigestRow]) -> dict[str, DigestRow]:
    return {row.key_digest: row for row in rows}


def _sort_key(row: DigestRow) -> tuple[tuple[int, str], ...]:
    return tuple((0, "") if v is None else (1, v) for v in row.key)
