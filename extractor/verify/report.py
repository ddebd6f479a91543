"""How ``oracdc verify`` shows its results: lines on screen, JSON Lines in ``--out``."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO

from extractor.verify import canonical
from extractor.verify.reconcile import KeyDifference, TableVerification


def table_line(result: TableVerification) -> str:
    if result.matches:
        verdict = "MATCH"
    else:
        verdict = (
            f"DIFFERENT (missing {result.missing}, extra {result.extra}, changed {result.changed})"
        )
    sample = (
        f" [sample: {result.buckets_checked}/{canonical.BUCKET_COUNT} key buckets]"
        if result.sampled
        else ""
    )
    return (
        f"{result.table:<28} source {result.source_rows:>9,}  replica "
        f"{result.replica_rows:>9,}  {verdict}{sample}"
    )


def example_lines(result: TableVerification, limit: int) -> list[str]:
    lines = [f"    {d.describe()}" for d in result.examples[:limit]]
    shown = len(lines)
    total = result.missing + result.extra + result.changed
    if total > shown:
        lines.append(f"    ... {total - shown:,} more")
    return lines


class DifferenceFile:
    """``--out``: every difference, then one summary record per table (JSON Lines)."""

    def __init__(self, path: Path | None) -> None:
        self._stream: IO[str] | None = None if path is None else path.open("w", encoding="utf-8")

    def difference(self, difference: KeyDifference) -> None:
        self._write(difference.to_json())

    def tables(self, results: Iterable[TableVerification]) -> None:
        for result in results:
            self._write(result.to_json())

    def _write(self, record: dict[str, object]) -> None:
        if self._stream is not None:
            self._stream.write(json.dumps(record, sort_keys=True) + "\n")

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()

    def __enter__(self) -> DifferenceFile:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
