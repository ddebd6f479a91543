"""The mining process: windows read and transactions assembled beside the extracting process.

With ``mining.reader: process`` (``auto`` picks it for replay and Oracle sources on a machine
with two cores or more) a second Python process opens the configured source itself and runs
the :class:`~extractor.assemble.window_miner.WindowMiner`: it reads each window's rows, joins
CSF chains and assembles transactions, and hands on, in order, each committed transaction and
each window's end. The extracting process parses, lands and checkpoints them exactly as it
does with the inline miner, while the mining process already reads the next rows: on two
cores the two halves of the per-row work overlap (docs/performance.md §1).

What stays as it is:

- commit order and the checkpoint rules: the extracting process checkpoints a window when
  it has landed it, with the buffer's state the mining process reported at that window's end
  (``MinedWindow``), so a checkpoint never covers more than has landed;
- restarts: when anything fails, or the pipeline starts over from its checkpoint, the mining
  process is stopped and a new one mines again from the checkpoint (``reset``);
- errors: an error in the mining process is raised in the extracting process as the same
  exception (or, when it cannot be carried over, a :class:`MiningProcessError` with its
  text); its log records are logged by the extracting process under their own logger names.

Wire: the extracting process writes pickled commands to the mining process's stdin; the
mining process writes length-prefixed msgpack frames of messages to its stdout (a list of
:data:`_Message` each, ``msgspec``). Its stderr goes to ``<data_dir>/logs/mining-process.log``.
The pipe (1 MiB where Linux allows) is the only buffer: the mining process runs ahead of the
extracting process by what it holds. The extracting process reads frames in its main thread:
a reader thread would wait for the GIL after every read while the main thread parses, up to
the 5 ms switch interval each time, which measured slower than no thread at all.

Run as ``python -m extractor.assemble.mining_process`` by :class:`MiningProcess` only.
"""

from __future__ import annotations

import logging
import os
import pickle
import shutil
import struct
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

import msgspec

from extractor.assemble.records import BufferMetrics, CommittedTransaction
from extractor.assemble.window_miner import MinedWindow, WindowMiner
from extractor.config import MiningSettings
from extractor.dictionary import TableDef
from extractor.errors import MiningProcessError
from extractor.logminer_row import LogMinerRow
from extractor.nls import NlsSettings
from extractor.redo_position import CommitPosition
from extractor.source.base import Source

LOG = logging.getLogger(__name__)

STDERR_FILE = Path("logs") / "mining-process.log"  # under data_dir
_ROWS_PER_FRAME = 200  # a frame is sent when it holds this many rows (or a window ends)
_PIPE_BYTES = 1 << 20  # the stdout pipe's size (Linux F_SETPIPE_SZ), best effort
_LENGTH = struct.Struct("<I")
_SPILL_PREFIX = "mining-"  # spill_dir/mining-<pid>: a mining process's own spill files
_STOP_SECONDS = 10.0


# -- commands (extracting process -> mining process, pickled) ------------------------------


@dataclass(frozen=True)
class _Start:
    source: Mapping[str, Any]
    data_dir: Path
    mining: MiningSettings
    memory_budget_bytes: int
    spill_dir: Path
    log_level: int
    nls: NlsSettings  # an Oracle session's formats (docs/configuration.md, nls)


@dataclass(frozen=True)
class _Mine:
    tables: tuple[TableDef, ...]
    start_scn: int
    target_scn: int
    reset: bool
    emit_after: CommitPosition | None
    known_objects: tuple[tuple[int, str, str], ...] = ()  # OBJECT_ID, owner, table


# -- messages (mining process -> extracting process, msgpack) ------------------------------


class _Transaction(msgspec.Struct, array_like=True, tag=1):
    xid: str
    start_scn: int
    commit_scn: int
    commit_timestamp: str | None
    commit_rs_id: str
    commit_ssn: int
    saw_start: bool
    row_count: int
    rows: list[LogMinerRow]
    complete: bool  # False: _MoreRows follow


class _MoreRows(msgspec.Struct, array_like=True, tag=2):
    rows: list[LogMinerRow]
    complete: bool


class _Window(msgspec.Struct, array_like=True, tag=3):
    start_scn: int
    window_end: int
    window_scns: int
    session_start_scn: int
    rows_read: int
    oldest_open_scn: int | None
    buffer: dict[str, int]
    abandoned: int
    redo_logs: list[str]


class _Finished(msgspec.Struct, array_like=True, tag=4):
    pass


class _Failed(msgspec.Struct, array_like=True, tag=5):
    error: bytes  # the pickled exception, empty when it cannot be pickled
    text: str


class _Log(msgspec.Struct, array_like=True, tag=6):
    logger: str
    level: int
    message: str
    extra: dict[str, str | int | float | bool | None]  # the record's plain ``extra`` fields


class _Objects(msgspec.Struct, array_like=True, tag=7):
    """The mining source's OBJECT_ID -> (owner, table) of the mined tables, whole, sent
    before the first transaction that may need it (and again when it changes)."""

    objects: list[tuple[int, str, str]]


_Message = _Transaction | _MoreRows | _Window | _Finished | _Failed | _Log | _Objects
_FRAME_DECODER = msgspec.msgpack.Decoder(list[_Message])


class ChildProcess(Protocol):
    """What :class:`MiningProcess` uses of the process it starts (``subprocess.Popen``)."""

    pid: int
    stdin: IO[bytes] | None
    stdout: IO[bytes] | None

    def poll(self) -> int | None: ...

    def kill(self) -> None: ...

    def wait(self, timeout: float | None = None) -> int: ...


class MiningProcess:
    """The extracting process's side: a :class:`~extractor.assemble.window_miner.TransactionFeed`
    whose windows are mined by a child process (started by ``start``, or by the first
    ``mine``)."""

    def __init__(
        self,
        source: Mapping[str, Any],
        data_dir: Path,
        mining: MiningSettings,
        memory_budget_bytes: int,
        spill_dir: Path,
        nls: NlsSettings | None = None,
    ) -> None:
        self._start = _Start(
            dict(source),
            data_dir,
            mining,
            memory_budget_bytes,
            spill_dir,
            logging.getLogger().getEffectiveLevel(),
            nls or NlsSettings(),
        )
        self._process: ChildProcess | None = None
        self._reset: tuple[CommitPosition | None, tuple[tuple[int, str, str], ...]] | None = None
        self._objects: dict[int, tuple[str, str]] = {}  # what the mining source named
        self._busy = False  # a _Mine command is being answered
        self._mined = False  # the running process has been asked to mine

    def table_for_object(self, object_id: int) -> tuple[str, str] | None:
        """(owner, table) of a mined table by its OBJECT_ID, as the mining process's source
        knows it (``OracleSource.table_for_object``; rows LogMiner could not name)."""
        return self._objects.get(object_id)

    def start(self) -> None:
        """Start the mining process now: it opens its source and warms it (an Oracle
        connection; a replay bundle reads its last line) while this process does other work."""
        if self._process is None:
            self._spawn()

    def reset(
        self,
        emit_after: CommitPosition | None,
        known_objects: Mapping[int, tuple[str, str]] | None = None,
    ) -> None:
        """Forget the open transactions (a running mining process is stopped unless it has
        not mined yet); the next ``mine`` starts from the checkpoint, its source knowing
        ``known_objects`` (``WindowMiner.reset``)."""
        if self._mined:
            self.close()
        known = tuple((n, owner, name) for n, (owner, name) in (known_objects or {}).items())
        self._reset = (emit_after, known)

    def mined_objects(self) -> Mapping[int, tuple[str, str]]:
        """What the mining process's source mines by, as it last sent it."""
        return dict(self._objects)

    def mine(
        self, tables: Sequence[TableDef], start_scn: int, target_scn: int
    ) -> Iterator[CommittedTransaction | MinedWindow]:
        if self._reset is None and self._process is None:
            raise RuntimeError("MiningProcess.mine before reset")
        reset = self._reset
        command = _Mine(
            tuple(tables), start_scn, target_scn, reset is not None, reset[0] if reset else None,
            reset[1] if reset else (),
        )  # fmt: skip
        self._send(command)
        self._reset = None
        self._busy = self._mined = True
        try:
            yield from self._events()
            self._busy = False
        finally:
            if self._busy:  # failed or abandoned half way: its state is ahead of ours
                self.close()

    def close(self) -> None:
        """Stop the mining process (its open transactions are forgotten)."""
        process, self._process = self._process, None
        self._mined = False
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()  # end of commands: it closes its source and stops
        except OSError:
            pass
        if self._busy:
            process.kill()  # it may be blocked writing frames nobody will read
            self._busy = False
        try:
            process.wait(_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(_STOP_SECONDS)
        if process.stdout is not None:
            process.stdout.close()
        shutil.rmtree(own_spill_dir(self._start.spill_dir, process.pid), ignore_errors=True)

    # -- internals ------------------------------------------------------------------------

    def _send(self, command: _Mine) -> None:
        process = self._process or self._spawn()
        assert process.stdin is not None
        try:
            _write_frame(process.stdin, pickle.dumps(command))
        except OSError as error:
            raise self._told_failure() or self._stopped(f"cannot be reached ({error})") from None

    def _spawn(self) -> ChildProcess:
        # Held under the checkpoint lock: a mining spill directory left now is a dead
        # process's (both processes killed); its files hold row values.
        for stale in self._start.spill_dir.glob(f"{_SPILL_PREFIX}*"):
            shutil.rmtree(stale, ignore_errors=True)
        log_path = self._start.data_dir / STDERR_FILE
        _start_log(log_path)
        process = self._launch(log_path)
        assert process.stdin is not None and process.stdout is not None
        self._process = process
        try:
            _write_frame(process.stdin, pickle.dumps(self._start))
        except OSError as error:
            raise self._told_failure() or self._stopped(f"did not start ({error})") from None
        LOG.info("mining process %d started", process.pid)
        return process

    def _launch(self, log_path: Path) -> ChildProcess:
        """The mining process, its stderr appended to ``log_path`` (tests serve it from a
        thread instead: a simulated database cannot be opened by another process)."""
        with open(log_path, "ab") as stderr:
            process = subprocess.Popen(
                [sys.executable, "-m", __name__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
                close_fds=True,
            )
        assert process.stdout is not None
        _enlarge_pipe(process.stdout)
        return process

    def _events(self) -> Iterator[CommittedTransaction | MinedWindow]:
        messages = self._messages()
        for message in messages:
            if isinstance(message, _Transaction):
                rows = _transaction_rows(message, messages)
                yield CommittedTransaction(
                    message.xid,
                    message.start_scn,
                    message.commit_scn,
                    message.commit_timestamp,
                    message.commit_rs_id,
                    message.commit_ssn,
                    message.saw_start,
                    message.row_count,
                    rows,
                )
                for _ in rows:  # rows the consumer left: the next message follows them
                    pass
            elif isinstance(message, _Window):
                yield MinedWindow(
                    message.start_scn,
                    message.window_end,
                    message.window_scns,
                    message.session_start_scn,
                    message.rows_read,
                    message.oldest_open_scn,
                    BufferMetrics(**message.buffer),
                    message.abandoned,
                    tuple(message.redo_logs),
                )
            elif isinstance(message, _Finished):
                return
            else:
                raise MiningProcessError(f"unexpected message from the mining process: {message}")

    def _messages(self) -> Iterator[_Message]:
        process = self._process
        assert process is not None and process.stdout is not None
        while True:
            frame = _read_frame(process.stdout)
            if frame is None:
                try:
                    process.wait(_STOP_SECONDS)
                except subprocess.TimeoutExpired:
                    process.kill()  # its output ended: it is of no use any more
                    process.wait(_STOP_SECONDS)
                raise self._stopped("stopped")
            for message in _FRAME_DECODER.decode(frame):
                if isinstance(message, _Log):
                    extra = {**message.extra, "origin": "mining process"}
                    logging.getLogger(message.logger).log(
                        message.level, "%s", message.message, extra=extra
                    )
                elif isinstance(message, _Failed):
                    raise _exception(message)
                elif isinstance(message, _Objects):
                    self._objects = {n: (owner, name) for n, owner, name in message.objects}
                else:
                    yield message

    def _told_failure(self) -> BaseException | None:
        """The failure a mining process that stopped sent before it did (e.g. its source
        could not be opened), if any."""
        process = self._process
        if process is None or process.stdout is None:
            return None
        try:
            process.wait(_STOP_SECONDS)
            while (frame := _read_frame(process.stdout)) is not None:
                for message in _FRAME_DECODER.decode(frame):
                    if isinstance(message, _Failed):
                        return _exception(message)
        except (OSError, ValueError, subprocess.TimeoutExpired, msgspec.DecodeError):
            return None
        return None

    def _stopped(self, what: str) -> MiningProcessError:
        process = self._process
        code = None if process is None else process.poll()
        tail = _tail(self._start.data_dir / STDERR_FILE)
        return MiningProcessError(
            f"the mining process {what} (exit code {code})" + (f": {tail}" if tail else "")
        )


def _transaction_rows(first: _Transaction, messages: Iterator[_Message]) -> Iterator[LogMinerRow]:
    yield from first.rows
    complete = first.complete
    while not complete:
        more = next(messages)
        if not isinstance(more, _MoreRows):
            raise MiningProcessError(f"rows of transaction {first.xid} cut short by {more}")
        yield from more.rows
        complete = more.complete


def _exception(failed: _Failed) -> BaseException:
    if failed.error:
        try:
            return _rebuilt(failed.error)
        except Exception:
            LOG.debug("the mining process's exception did not come back: %s", failed.text)
    return MiningProcessError(f"the mining process failed: {failed.text}")


_LOG_MARK = "--- mining process started"
_LOG_KEEP_BYTES = 10 * 1024 * 1024


def _start_log(path: Path) -> None:
    """Opens the mining process's stderr file for a new process: rotated past 10 MiB (one
    old file kept), then a line that marks where this process's output begins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > _LOG_KEEP_BYTES:
        path.replace(path.with_name(path.name + ".1"))
    with open(path, "a", encoding="utf-8") as log:
        log.write(f"{_LOG_MARK} {datetime.now(UTC).isoformat(timespec='seconds')}\n")


def _tail(path: Path, lines: int = 3) -> str:
    """The last lines the current mining process wrote to its stderr file."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    own = text.rsplit(_LOG_MARK, 1)[-1].split("\n", 1)[-1] if _LOG_MARK in text else text
    return " | ".join(own.strip().splitlines()[-lines:])


def _enlarge_pipe(stream: IO[bytes]) -> None:
    try:
        import fcntl

        fcntl.fcntl(stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)
    except (ImportError, OSError):
        pass  # the default size works, with less overlap


def _write_frame(stream: IO[bytes], payload: bytes) -> None:
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(header)
    payload = stream.read(size)
    return payload if len(payload) == size else None


# -- the mining process's side ----------------------------------------------------------------


class _Sender:
    """Batches messages into frames on stdout."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self._encoder = msgspec.msgpack.Encoder()
        self._pending: list[_Message] = []
        self._rows = 0

    def add(self, message: _Message, rows: int = 0) -> None:
        self._pending.append(message)
        self._rows += rows
        if self._rows >= _ROWS_PER_FRAME:
            self.flush()

    def transaction(self, committed: CommittedTransaction) -> None:
        rows = committed.rows
        chunk = _take(rows, _ROWS_PER_FRAME)
        complete = len(chunk) < _ROWS_PER_FRAME
        self.add(
            _Transaction(
                committed.xid,
                committed.start_scn,
                committed.commit_scn,
                committed.commit_timestamp,
                committed.commit_rs_id,
                committed.commit_ssn,
                committed.saw_start,
                committed.row_count,
                chunk,
                complete,
            ),
            len(chunk),
        )
        while not complete:
            chunk = _take(rows, _ROWS_PER_FRAME)
            complete = len(chunk) < _ROWS_PER_FRAME
            self.add(_MoreRows(chunk, complete), len(chunk))

    def window(self, mined: MinedWindow) -> None:
        buffer = {name: getattr(mined.buffer, name) for name in BufferMetrics.__dataclass_fields__}
        self.add(
            _Window(
                mined.start_scn,
                mined.window_end,
                mined.window_scns,
                mined.session_start_scn,
                mined.rows_read,
                mined.oldest_open_scn,
                buffer,
                mined.abandoned,
                list(mined.redo_logs),
            )
        )
        self.flush()

    def flush(self) -> None:
        if self._pending:
            _write_frame(self._stream, self._encoder.encode(self._pending))
            self._pending, self._rows = [], 0


def _take(rows: Iterator[LogMinerRow], count: int) -> list[LogMinerRow]:
    taken: list[LogMinerRow] = []
    for row in rows:
        taken.append(row)
        if len(taken) == count:
            break
    return taken


# What every LogRecord has; the rest of a record's attributes came in its ``extra``.
_RECORD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", None, None).__dict__) | {
    "message",
    "asctime",
    "origin",
}


class _ForwardLogs(logging.Handler):
    """The mining process's log records, sent to the extracting process in order: those of
    the thread that serves (the only one in a mining process; a test serving from a thread
    of the extracting process must not send that process's own records)."""

    def __init__(self, sender: _Sender) -> None:
        super().__init__()
        self._sender = sender
        self._thread = threading.get_ident()

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self._thread:
            return
        try:
            extra = {
                key: value
                for key, value in record.__dict__.items()
                if key not in _RECORD_ATTRIBUTES
                and (value is None or isinstance(value, str | int | float | bool))
            }
            self._sender.add(_Log(record.name, record.levelno, record.getMessage(), extra))
        except Exception:
            self.handleError(record)


def _read_command(stream: IO[bytes]) -> object | None:
    frame = _read_frame(stream)
    return None if frame is None else pickle.loads(frame)


def serve(
    commands: IO[bytes],
    out: IO[bytes],
    source_opener: Callable[[_Start], Source] | None = None,
) -> int:
    """The mining process's loop: a ``_Start``, then ``_Mine`` commands until stdin ends.
    ``source_opener``: how the source is opened (tests; default: from the configuration)."""
    sender = _Sender(out)
    start = _read_command(commands)
    if not isinstance(start, _Start):
        return 2
    root = logging.getLogger()
    root.setLevel(start.log_level)
    forward = _ForwardLogs(sender)
    root.addHandler(forward)
    try:
        return _serve_started(commands, sender, start, source_opener)
    finally:
        root.removeHandler(forward)


def _serve_started(
    commands: IO[bytes],
    sender: _Sender,
    start: _Start,
    source_opener: Callable[[_Start], Source] | None,
) -> int:
    try:
        source = (source_opener or _configured_source)(start)
    except Exception as error:
        sender.add(_failed(error))
        sender.flush()
        return 1
    spill_dir = own_spill_dir(start.spill_dir, os.getpid())
    miner = WindowMiner(source, start.mining, start.memory_budget_bytes, spill_dir)
    named = _NamedObjects(source)
    try:
        source.minable_scn()  # warm up: the connection (a bundle: its last line)
    except Exception as error:
        LOG.debug("warming the source up failed: %s", error)
    try:
        while isinstance(command := _read_command(commands), _Mine):
            try:
                if command.reset:
                    known = {n: (owner, name) for n, owner, name in command.known_objects}
                    miner.reset(command.emit_after, known)
                for event in miner.mine(command.tables, command.start_scn, command.target_scn):
                    named.send_new(sender)
                    if isinstance(event, MinedWindow):
                        sender.window(event)
                    else:
                        sender.transaction(event)
                sender.add(_Finished())
            except Exception as error:
                sender.add(_failed(error))
            sender.flush()
    finally:
        miner.close()
        source.close()
    return 0


def own_spill_dir(spill_dir: Path, pid: int) -> Path:
    """Where mining process ``pid`` spills: its own directory, which the extracting process
    removes once the process is gone (killed, it cannot remove its files itself)."""
    return spill_dir / f"{_SPILL_PREFIX}{pid}"


def _configured_source(start: _Start) -> Source:
    from extractor.source.factory import open_source

    return open_source(start.source, data_dir=start.data_dir, nls=start.nls)


class _NamedObjects:
    """Sends what the source learnt of object ids (``OracleSource.mined_objects``) when it
    changed; sources without the method have none."""

    def __init__(self, source: Source) -> None:
        self._mined: Callable[[], Mapping[int, tuple[str, str]]] | None = getattr(
            source, "mined_objects", None
        )
        self._sent: Mapping[int, tuple[str, str]] = {}

    def send_new(self, sender: _Sender) -> None:
        if self._mined is None:
            return
        objects = self._mined()
        if objects != self._sent:  # grown, or a name changed (a renamed table keeps its id)
            sender.add(_Objects([(n, owner, name) for n, (owner, name) in objects.items()]))
            self._sent = objects


def _failed(error: BaseException) -> _Failed:
    """The failure to send, so that the extracting process raises the same exception
    (``_exception``): pickled whole when that comes back as the same class and text (built-in
    exceptions keep state outside ``__dict__``), else as class, ``args`` and attributes
    rebuilt without calling ``__init__`` (errors whose ``__init__`` takes other arguments than
    their message), else only its text."""
    pickled = b""
    for encode in (_whole, _parts):
        try:
            candidate = encode(error)
            back = _rebuilt(candidate)
            same = type(back) is type(error) and str(back) == str(error)
        except Exception:
            continue
        if same:
            pickled = candidate
            break
    traceback.print_exception(error, file=sys.stderr)  # to mining-process.log
    return _Failed(pickled, f"{type(error).__name__}: {error}")


def _whole(error: BaseException) -> bytes:
    return b"W" + pickle.dumps(error)


def _parts(error: BaseException) -> bytes:
    return b"P" + pickle.dumps((type(error), error.args, dict(error.__dict__)))


def _rebuilt(pickled: bytes) -> BaseException:
    if pickled[:1] == b"W":
        whole = pickle.loads(pickled[1:])
        if not isinstance(whole, BaseException):
            raise TypeError(f"not an exception: {whole!r}")
        return whole
    kind, args, attributes = pickle.loads(pickled[1:])
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        raise TypeError(f"not an exception class: {kind!r}")
    error: BaseException = kind.__new__(kind, *args)
    error.args = tuple(args)
    error.__dict__.update(attributes)
    return error


def main() -> int:
    # Frames go on a private descriptor; fd 1 (and sys.stdout) become stderr, so that nothing
    # else written to stdout (a print, a native library) can fall between two frames.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    commands = sys.stdin.buffer
    try:
        return serve(commands, out)
    except BrokenPipeError:
        return 0  # the extracting process went away


if __name__ == "__main__":
    # Run as a module, this file is __main__; the commands pickled by the extracting process
    # name the classes of extractor.assemble.mining_process, so serve with that module's.
    from extractor.assemble import mining_process

    sys.exit(mining_process.main())
