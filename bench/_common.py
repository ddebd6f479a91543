"""Helpers shared by the pipeline benchmarks: machine facts, peak memory, results files, tables.

Every benchmark prints a plain table and writes the same numbers as JSON to
``bench/results/<name>-<UTC time>.json`` (the folder is git-ignored), next to the load
average of the machine at the start and at the end of the run and a CPU speed probe with
every row: the machine is shared, and a number is only meaningful with the load and the
speed it was measured under.
"""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"
REPO_DIR = Path(__file__).resolve().parents[1]


def load_average() -> tuple[float, float, float]:
    """The 1, 5 and 15 minute load averages."""
    one, five, fifteen = os.getloadavg()
    return round(one, 2), round(five, 2), round(fifteen, 2)


def cpu_probe_seconds(repeat: int = 3) -> float:
    """Best-of-``repeat`` seconds of a fixed single-threaded CPython workload (integer
    arithmetic and dict stores, the kind of work parsing and typing do).

    The load average does not show how fast a shared machine's cores are at the moment
    (the host's other tenants): the same code measured 40 s in the morning and 70 s in the
    evening at the same load. The probe is a rough guide to that speed (it varies by itself
    from one process to the next); compare runs of different times with it at hand."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        total = 0
        table: dict[int, int] = {}
        for value in range(1_000_000):
            total += value * value % 7
            table[value & 1023] = total
        best = min(best, time.perf_counter() - started)
    return round(best, 3)


def child_peak_rss_mb(command_marker: str) -> float:
    """Peak resident set size (MiB, VmHWM) of this process's living children whose command
    line holds ``command_marker`` (e.g. the mining process), summed; 0 where /proc is absent."""
    total = 0.0
    try:
        tasks = Path("/proc/self/task").iterdir()
        children = {c for t in tasks for c in (t / "children").read_text().split()}
    except OSError:
        return 0.0
    for pid in children:
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
            if command_marker not in command:
                continue
            for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            continue
    return total


def peak_rss_mb() -> float:
    """Peak resident set size of this Python process so far (MiB; the JVM is not included).

    From VmHWM in /proc (reset when the process execs), not ``ru_maxrss``: Linux carries
    ``ru_maxrss`` over fork and exec, so a child started by a parent that had read a large
    file reported the parent's peak (seen: 1,647 MB for a child whose own peak was 372 MB)."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """Resident set size of this process now (MiB), from /proc (0 where /proc is absent)."""
    try:
        fields = Path("/proc/self/statm").read_text(encoding="ascii").split()
    except OSError:
        return 0.0
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


def machine() -> dict[str, Any]:
    """What the numbers were measured on: CPUs, memory, Python, Java and library versions."""
    versions = {}
    for package in ("pyspark", "dbt-core", "dbt-spark", "pyarrow"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "absent"
    memory_kb = 0
    try:
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemTotal:"):
                memory_kb = int(line.split()[1])
    except OSError:
        pass
    return {
        "cpus": os.cpu_count(),
        "memory_gib": round(memory_kb / 1024 / 1024, 1),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "java": os.environ.get("JAVA_HOME", "java on PATH"),
        **versions,
    }


@dataclass
class PhaseTimer:
    """Seconds spent per named phase; ``with timer.phase("land"): ...`` adds to ``land``."""

    seconds: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(name, time.perf_counter() - started)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + seconds


@dataclass
class BenchRun:
    """One benchmark run: its parameters, rows of results, and the machine's load."""

    name: str
    parameters: Mapping[str, Any]
    rows: list[dict[str, Any]] = field(default_factory=list)
    load_start: tuple[float, float, float] = field(default_factory=load_average)
    started_at: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def add(self, **row: Any) -> dict[str, Any]:
        """Record one result row (the load average and a CPU probe at that moment are added)."""
        row = {**row, "load_1m": load_average()[0], "cpu_probe_s": cpu_probe_seconds()}
        self.rows.append(row)
        return row

    def to_json(self) -> dict[str, Any]:
        return {
            "benchmark": self.name,
            "started_at": self.started_at,
            "parameters": dict(self.parameters),
            "machine": machine(),
            "load_average_start": self.load_start,
            "load_average_end": load_average(),
            "rows": self.rows,
        }

    def save(self, results_dir: Path = RESULTS_DIR) -> Path:
        """Write the run as JSON under ``results_dir``; returns the file written."""
        results_dir.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = results_dir / f"{self.name}-{stamp}.json"
        path.write_text(json.dumps(self.to_json(), indent=2, default=str) + "\n", encoding="utf-8")
        return path


def format_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """A plain aligned text table of ``columns`` of ``rows`` (numbers with thousands commas)."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:,.2f}" if abs(value) < 100 else f"{value:,.0f}"
        if isinstance(value, int):
            return f"{value:,}"
        return "" if value is None else str(value)

    body = [[cell(row.get(c)) for c in columns] for row in rows]
    widths = [max([len(c), *(len(line[i]) for line in body)]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(columns, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.rjust(w) for v, w in zip(line, widths, strict=True)) for line in body]
    return "\n".join(lines)


def rate(rows: int, seconds: float) -> float:
    """Rows per second (0 when no time was measured)."""
    return rows / seconds if seconds > 0 else 0.0


def parse_counts(text: str) -> list[int]:
    """``"100k,1M,3_000_000"`` -> ``[100000, 1000000, 3000000]``."""
    counts = []
    for part in text.split(","):
        word = part.strip().lower().replace("_", "")
        factor = 1
        if word.endswith("k"):
            factor, word = 1_000, word[:-1]
        elif word.endswith("m"):
            factor, word = 1_000_000, word[:-1]
        counts.append(int(float(word) * factor))
    return counts


class TimedSource:
    """A Source proxy: every call into it (and every row ``mine`` serves) is timed as ``read``."""

    def __init__(self, inner: Any, timer: PhaseTimer) -> None:
        self._inner = inner
        self._timer = timer

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._inner, name)
        if not callable(attribute):
            return attribute
        return timed_call(self._timer, "read", attribute)

    @contextmanager
    def mine(
        self, start_scn: int, end_scn: int, tables: Any, session_start_scn: int | None = None
    ) -> Iterator[Iterator[Any]]:
        with self._timer.phase("read"):
            manager = self._inner.mine(start_scn, end_scn, tables, session_start_scn)
            rows = manager.__enter__()
        try:
            yield self._timed(rows)
        except BaseException as error:
            if not manager.__exit__(type(error), error, error.__traceback__):
                raise
        else:
            manager.__exit__(None, None, None)

    def _timed(self, rows: Iterator[Any]) -> Iterator[Any]:
        clock = time.perf_counter
        spent = 0.0
        try:
            while True:
                started = clock()
                try:
                    row = next(rows)
                except StopIteration:
                    spent += clock() - started
                    return
                spent += clock() - started
                yield row
        finally:
            self._timer.add("read", spent)


def timed_call(timer: PhaseTimer, phase: str, function: Any) -> Any:
    """``function`` wrapped so that its calls add to ``phase`` of ``timer``. It wraps calls
    made once per transaction: two clock reads, no context manager (which cost ~3 us a call
    here, 2-4% of a 100k stream pass that the measurement then counted as ours)."""
    clock = time.perf_counter
    seconds = timer.seconds

    def call(*args: Any, **kwargs: Any) -> Any:
        started = clock()
        try:
            return function(*args, **kwargs)
        finally:
            seconds[phase] = seconds.get(phase, 0.0) + (clock() - started)

    return call


@contextmanager
def instrumented(extractor: Any, timer: PhaseTimer) -> Iterator[None]:
    """Time an Extractor's phases: ``parse+type`` (ChangeBuilder.build), ``arrow``
    (change_batch), ``spark`` (StagingWriter.append: snapshot and change batches)."""
    import extractor.pipeline.lander as extractor_module  # where change_batch is called

    original_change_batch = getattr(extractor_module, "change_batch")  # noqa: B009
    setattr(extractor_module, "change_batch", timed_call(timer, "arrow", original_change_batch))  # noqa: B010
    builder, writer = extractor.builder, extractor.writer
    builder.build = timed_call(timer, "parse+type", builder.build)
    writer.append = timed_call(timer, "spark", writer.append)
    try:
        yield
    finally:
        setattr(extractor_module, "change_batch", original_change_batch)  # noqa: B010
        del builder.build
        del writer.append
