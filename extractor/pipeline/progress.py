"""Progress of long work (snapshots, mining): a live line on a terminal, plain lines otherwise."""

from __future__ import annotations

import logging
import sys
import time
from typing import TextIO

LOG = logging.getLogger("oracdc.progress")


class Progress:
    """Rows done of one unit of work (a table snapshot, a mining run), with rate and ETA.

    On a terminal the line is redrawn in place at most 4 times a second; otherwise (a
    service's log, CI) a plain line is written, and logged, at most every
    ``log_every_seconds``. ``total`` may be unknown (None).
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        log_every_seconds: float = 10.0,
    ) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self._stream = stream if stream is not None else sys.stderr
        self._live = bool(getattr(self._stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._last_shown = 0.0
        self._every = 0.25 if self._live else log_every_seconds

    def advance(self, rows: int) -> None:
        self.done += rows
        now = time.monotonic()
        if now - self._last_shown >= self._every:
            self._last_shown = now
            self._show(final=False)

    def finish(self) -> None:
        self._show(final=True)

    def rate(self) -> float:
        elapsed = time.monotonic() - self._started
        return self.done / elapsed if elapsed > 0 else 0.0

    def line(self) -> str:
        rate = self.rate()
        text = f"{self.label}: {self.done:,} rows, {rate:,.0f} rows/s"
        if self.total:
            share = min(self.done / self.total, 1.0)
            remaining = (self.total - self.done) / rate if rate > 0 else float("inf")
            eta = "?" if remaining == float("inf") else f"{max(remaining, 0):,.0f}s"
            width = 20
            bar = "#" * int(share * width) + "." * (width - int(share * width))
            text = (
                f"{self.label}: [{bar}] {self.done:,}/{self.total:,} rows, "
                f"{rate:,.0f} rows/s, ETA {eta}"
            )
        return text

    def _show(self, *, final: bool) -> None:
        if self._live:
            end = "\n" if final else ""
            self._stream.write("\r\x1b[2K" + self.line() + end)
            self._stream.flush()
        else:  # not a terminal (a service's log, CI): one plain line per interval
            line = f"{self.line()}{' (done)' if final else ''}"
            self._stream.write(line + "\n")
            self._stream.flush()
            LOG.info("%s", line)
