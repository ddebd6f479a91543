"""Arrow landing batches from change records: the C extension's column buffers against
pyarrow's conversion of Python values, on the same records in one run.

    .venv/bin/python bench/change_batch_bench.py [--rows 200000] [--repeat 5]

Builds ``change_batch`` over the records of ``land_bench.py`` (a 10-column table, every
change an update carrying 5 columns: 2 decimals, a string, a timestamp, a double) and over
the same records as full images (every column), with the extension (``columns_of``,
``attributes_of``, ``arrow_buffers``) and with the pure-Python reading
(``implementation.pure_python()``: list comprehensions and ``pyarrow.array`` per column),
alternating, best of ``--repeat``. No Spark.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from msgspec.structs import replace

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _common import BenchRun, format_table
from land_bench import EXTRACTED_AT, TABLE, make_records

from extractor.change_record import ChangeRecord
from extractor.land.change_batch import change_batch
from extractor.parse import implementation


def full_images(records: list[ChangeRecord]) -> list[ChangeRecord]:
    """The records carrying every column (the ones they lack as NULL), as inserts do."""
    empty = dict.fromkeys(TABLE.column_names)
    return [replace(r, values={**empty, **r.values}, full_image=True) for r in records]


def seconds(build: Callable[[], object], *, pure: bool) -> float:
    """One build's time, with the extension or with the pure-Python reading."""
    started = time.perf_counter()
    if pure:
        with implementation.pure_python():
            build()
    else:
        build()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    if implementation.compiled is None:
        print("the C extension is not built: nothing to compare", file=sys.stderr)
        return 2
    run = BenchRun("change_batch", {"rows": args.rows, "repeat": args.repeat})
    partial = make_records(args.rows)
    for images, records in (("partial (5 of 10 columns)", partial), ("full", full_images(partial))):

        def build(records: list[ChangeRecord] = records) -> object:
            return change_batch(TABLE, records, batch_id=1, extracted_at=EXTRACTED_AT)

        # alternate the two so that a change in the host's speed hits both
        c_code = pure = float("inf")
        for _ in range(args.repeat):
            c_code = min(c_code, seconds(build, pure=False))
            pure = min(pure, seconds(build, pure=True))
        run.add(
            images=images,
            rows=args.rows,
            c_us_per_row=round(c_code / args.rows * 1e6, 2),
            python_us_per_row=round(pure / args.rows * 1e6, 2),
            speedup=round(pure / c_code, 2),
        )
    print(
        format_table(
            run.rows, ["images", "rows", "c_us_per_row", "python_us_per_row", "speedup", "load_1m"]
        )
    )
    print(f"results: {run.save()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
