"""The index of ``logminer.jsonl`` in blocks (``logminer_index_blocks``) against its line by
line reference (``iter_logminer_index``): the same entries, or the same error, on any file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractor.errors import BundleError
from extractor.parse import implementation
from extractor.source.replay import bundle_format as fmt
from extractor.source.replay import logminer_file
from extractor.source.replay.replay_source import ReplaySource

_COMPILED = pytest.mark.skipif(
    implementation.compiled is None, reason="the C extension is not built"
)


def _row(scn: int, xid: str = "1.2.3", code: int = 1, **more: object) -> dict[str, object]:
    return {"SCN": scn, "XID": xid, "OPERATION_CODE": code, "RS_ID": " 0x1.2.3 ", **more}


def _line(scn: int, xid: str = "1.2.3", code: int = 1, **more: object) -> bytes:
    return json.dumps(_row(scn, xid, code, **more)).encode()


# Lines the fast path reads, and lines it must leave to the reference (each one of its
# tolerances or errors).
_GOOD = st.builds(
    _line,
    st.integers(1, 50),
    st.sampled_from(["1.2.3", "4.5.6", "7.8.9"]),
    st.sampled_from([1, 2, 3, 6, 7, 36]),
    SQL_REDO=st.text(max_size=40),
)
_ODD = st.sampled_from(
    [
        b"",  # blank
        b"   ",
        b"\t\x0b\x0c",  # blank to bytes.strip(), not JSON whitespace
        b" " + _line(20),  # leading space
        _line(21) + b" ",  # trailing space
        _line(22) + b"\r",  # CRLF
        json.dumps({**_row(23), "SCN": "23"}).encode(),  # a number as text
        json.dumps({**_row(24), "SQL_UNDO": "x"}).encode(),  # a further column
        _line(25) + b" " + _line(26),  # two objects on one line
        _line(27) + b"," + _line(28),
        b'{"SCN": 29, "XID": "1.2.3",',  # an object over two lines ...
        b'"OPERATION_CODE": 1, "RS_ID": "x"}',  # ... and its end
        b'{"SCN": 30}',  # index fields missing
        b"[1, 2]",
        b"{not json}",
        json.dumps(_row(31, SQL_REDO="a")).replace('"a"', '"\\ud800"').encode(),
        _line(32, SQL_REDO="x").replace(b'"x"', b'"\xff"'),  # not UTF-8 in a skipped value
        b'{"XID": "1.2.3", "SCN": 33, "OPERATION_CODE": 7, "RS_ID": "x"}',
    ]
)


def _outcome(entries: Iterator[object]) -> list[object] | str:
    try:
        return list(entries)
    except BundleError as error:
        return f"BundleError: {error}"


def _from_blocks(bundle: Path, offset: int = 0, first_line: int = 1) -> list[object] | str:
    def entries() -> Iterator[object]:
        for block in logminer_file.logminer_index_blocks(bundle, offset, first_line):
            lengths = {len(field) for field in block}
            assert len(lengths) == 1 and lengths != {0}, block
            yield from (
                logminer_file.LogMinerIndexEntry(*entry) for entry in zip(*block, strict=True)
            )

    return _outcome(entries())


def _write(tmp_path: Path, lines: list[bytes], tail: bytes | None) -> Path:
    """A bundle whose ``logminer.jsonl`` holds ``lines`` and ``tail`` (no newline after it)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    data = b"".join(line + b"\n" for line in lines) + (tail or b"")
    (tmp_path / fmt.LOGMINER_FILE).write_bytes(data)
    (tmp_path / fmt.BUNDLE_FILE).write_text(
        json.dumps({"format": fmt.FORMAT, "database": "X", "nls": {}})
    )
    (tmp_path / fmt.DICTIONARY_FILE).write_text("[]")
    return tmp_path


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.one_of(_GOOD, _GOOD, _GOOD, _ODD), max_size=40),
    tail=st.one_of(st.none(), _GOOD, st.just(b'{"SCN": 5')),
    block_bytes=st.sampled_from([16, 97, 300, 1 << 20]),
    skip=st.integers(0, 5),
)
def test_blocks_hold_the_reference_entries_or_its_error(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    tail: bytes | None,
    block_bytes: int,
    skip: int,
) -> None:
    bundle = _write(tmp_path_factory.mktemp("bundle"), lines, tail)
    offset = sum(len(line) + 1 for line in lines[:skip])  # read from a later line too
    first = min(skip, len(lines)) + 1
    saved = logminer_file._BLOCK_BYTES
    logminer_file._BLOCK_BYTES = block_bytes
    try:
        expected = _outcome(logminer_file.iter_logminer_index(bundle, offset, first))
        assert _from_blocks(bundle, offset, first) == expected
        with implementation.pure_python():
            assert _from_blocks(bundle, offset, first) == expected
    finally:
        logminer_file._BLOCK_BYTES = saved


@_COMPILED
def test_well_formed_lines_are_decoded_a_block_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast path is taken, not the reference: the test above would pass without it."""
    lines = [_line(scn, f"1.{scn % 7}.3", 7 if scn % 3 == 0 else 1) for scn in range(1, 3001)]
    bundle = _write(tmp_path, [*lines[:1500], b"", b"  ", *lines[1500:]], None)
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", 20_000)

    def no_reference(*args: object, **kwargs: object) -> Iterator[logminer_file.LogMinerIndexEntry]:
        raise AssertionError("read line by line")

    blocks = list(logminer_file.logminer_index_blocks(bundle))
    monkeypatch.setattr(logminer_file, "iter_logminer_index", no_reference)
    assert list(logminer_file.logminer_index_blocks(bundle)) == blocks
    assert len(blocks) > 5
    entries = [
        logminer_file.LogMinerIndexEntry(*entry)
        for block in blocks
        for entry in zip(*block, strict=True)
    ]
    monkeypatch.undo()
    assert entries == list(logminer_file.iter_logminer_index(bundle))
    assert [entry.number for entry in entries][1499:1501] == [1500, 1503]


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ([_line(1), _line(2) + b" " + _line(3)], "logminer.jsonl:2: not a JSON object"),
        (
            [_line(1), b'{"SCN": 2, "XID": "1.2.3",', b'"OPERATION_CODE": 1, "RS_ID": "x"}'],
            "logminer.jsonl:2: not a JSON object",
        ),
        (
            [
                _line(1),
                _line(2) + b" " + _line(3),
                b'{"SCN": 4, "XID": "1.2.3",',
                b'"OPERATION_CODE": 1, "RS_ID": "x"}',
            ],
            "logminer.jsonl:2: not a JSON object",
        ),
    ],
    ids=["two objects on a line", "an object over two lines", "as many objects as lines"],
)
def test_a_line_that_is_not_one_object_fails_on_its_line(
    tmp_path: Path, lines: list[bytes], error: str
) -> None:
    """decode_lines alone reads each of these; in the last, it finds as many values as there
    are lines."""
    bundle = _write(tmp_path, lines, None)
    with pytest.raises(BundleError, match=error):
        list(logminer_file.logminer_index_blocks(bundle))


@_COMPILED
def test_jsonl_lines_finds_the_objects_lines() -> None:
    compiled = implementation.compiled
    assert compiled is not None
    data = b'{"a": 1}\n\n \t\n{}\n'
    assert compiled.jsonl_lines(data, 100, 7) == ([100, 113], [109, 116], [7, 10], 4)
    assert compiled.jsonl_lines(memoryview(b"xx{}\n")[2:], 0, 1) == ([0], [3], [1], 1)
    assert compiled.jsonl_lines(b"", 0, 1) == ([], [], [], 0)
    for not_objects in [b" {}\n", b"{} \n", b"{}\r\n", b"[]\n", b"{}\n{", b"{"]:
        assert compiled.jsonl_lines(not_objects, 0, 1) is None, not_objects


def test_rows_out_of_scn_order_name_their_line_across_blocks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", 200)
    for position in (1, 2, 5, 11):  # the first line of a block, and inside one
        lines = [_line(10 + scn) for scn in range(12)]
        lines[position] = _line(5)
        bundle = _write(tmp_path / str(position), lines, None)
        with (
            pytest.raises(BundleError, match=rf"logminer.jsonl:{position + 1}: .*SCN order"),
            ReplaySource(bundle).mine(1, 100, []) as rows,
        ):
            list(rows)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["1.1.1", "2.2.2", "3.3.3", "4.4.4"]), st.sampled_from([1, 7, 36])
        ),
        min_size=1,
        max_size=30,
    ),
    block_bytes=st.sampled_from([100, 250, 1 << 20]),
)
def test_open_transactions_over_blocks_are_those_of_the_rows(
    tmp_path_factory: pytest.TempPathFactory, rows: list[tuple[str, int]], block_bytes: int
) -> None:
    """Each transaction's first SCN and first COMMIT / ROLLBACK (7, 36) SCN, gathered block by
    block: the transactions open at an SCN are those begun and not yet ended by then."""
    bundle = _write(
        tmp_path_factory.mktemp("bundle"),
        [_line(10 + n // 2, xid, code) for n, (xid, code) in enumerate(rows)],
        None,
    )
    saved = logminer_file._BLOCK_BYTES
    logminer_file._BLOCK_BYTES = block_bytes
    try:
        source = ReplaySource(bundle)
        for at in range(9, 12 + len(rows) // 2):
            begun: dict[str, int] = {}
            ended: dict[str, int] = {}
            for n, (xid, code) in enumerate(rows):
                begun.setdefault(xid, 10 + n // 2)
                if code in (7, 36):
                    ended.setdefault(xid, 10 + n // 2)
            open_at = [s for x, s in begun.items() if s <= at and ended.get(x, at + 1) > at]
            assert source.open_transaction_start_scn(at) == (min(open_at) if open_at else None)
    finally:
        logminer_file._BLOCK_BYTES = saved


@pytest.mark.parametrize("parser", ["compiled", "python"])
def test_rows_out_of_order_before_a_malformed_line_are_told_first(
    tmp_path: Path, parser: str
) -> None:
    """The lines read before the one that fails are checked as they were line by line."""
    if parser == "compiled" and implementation.compiled is None:
        pytest.skip("the C extension is not built")
    bundle = _write(tmp_path, [_line(10), _line(5), b"{not json}"], None)
    implementations = implementation.pure_python() if parser == "python" else nullcontext()
    with implementations, pytest.raises(BundleError, match=r"logminer.jsonl:2: .*SCN order"):
        ReplaySource(bundle).current_scn()


def _state(source: ReplaySource) -> tuple[object, ...]:
    return (
        list(source._scns), list(source._offsets), list(source._lines),
        sorted(source._first_scn.items()), sorted(source._end_scn.items()),
        source._offset, source._next_line,
    )  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(
        st.one_of(
            st.builds(lambda n: _line(n), st.integers(1, 3)),
            st.builds(lambda n: _line(n) + b"\r", st.integers(4, 6)),
            st.just(b""),
            st.just(b"  "),
        ),
        min_size=1,
        max_size=25,
    ),
    cuts=st.lists(st.integers(0, 10_000), max_size=8),
    block_bytes=st.sampled_from([64, 1 << 20]),
)
def test_a_growing_file_is_indexed_as_if_read_at_once(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    cuts: list[int],
    block_bytes: int,
) -> None:
    """Written in pieces cut anywhere (after a line's "}" and before its newline too), read
    after each piece: the current SCN is the one a source that indexes the piece whole
    reads, and the index is the one a new source builds from the whole file."""
    lines = sorted(lines, key=lambda line: json.loads(line)["SCN"] if line.strip() else 0)
    data = b"".join(line + b"\n" for line in lines)
    bundle = _write(tmp_path_factory.mktemp("bundle"), [], None)
    path = bundle / fmt.LOGMINER_FILE
    saved = logminer_file._BLOCK_BYTES
    logminer_file._BLOCK_BYTES = block_bytes
    try:
        growing = ReplaySource(bundle)
        for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
            path.write_bytes(data[:cut])
            assert growing.current_scn() == _loaded(ReplaySource(bundle)).current_scn()
            growing._load_logminer()
        assert _state(growing) == _state(_loaded(ReplaySource(bundle)))
    finally:
        logminer_file._BLOCK_BYTES = saved


def _loaded(source: ReplaySource) -> ReplaySource:
    """The source with its whole file indexed (current_scn alone reads the last line)."""
    source._load_logminer()
    return source


_Call = tuple[str, int, int]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(
            st.integers(0, 2),
            st.sampled_from(["1.1.1", "2.2.2", "3.3.3"]),
            st.sampled_from([1, 7, 36]),
        ),
        min_size=8,
        max_size=40,
    ),
    calls=st.lists(
        st.tuples(
            st.sampled_from(["current_scn", "open_transactions", "mine", "grow"]),
            st.integers(9, 60),  # the rows' SCNs: 10 to 90, most below 60
            st.integers(0, 12),
        ),
        min_size=1,
        max_size=12,
    ),
    block_bytes=st.sampled_from([64, 300, 1 << 20]),
)
def test_an_index_built_as_far_as_each_call_needs_answers_as_a_whole_one(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[int, str, int]],
    calls: list[_Call],
    block_bytes: int,
) -> None:
    """ReplaySource indexes logminer.jsonl only as far as a call needs it (a window up to its
    end, open transactions up to their SCN; the current SCN from the last line). Every answer,
    on a file that also grows between calls, is the one of a source that indexed the whole
    file first."""
    lines, scn = [], 10
    for step, xid, code in rows:  # in SCN order, several rows on one SCN too
        scn += step
        lines.append(_line(scn, xid, code))
    bundle = _write(tmp_path_factory.mktemp("bundle"), [], None)
    path = bundle / fmt.LOGMINER_FILE
    written = len(lines) * 2 // 3
    path.write_bytes(b"".join(line + b"\n" for line in lines[:written]))
    saved = logminer_file._BLOCK_BYTES
    logminer_file._BLOCK_BYTES = block_bytes
    try:
        lazy = ReplaySource(bundle)
        for call, scn_at, width in calls:
            whole = _loaded(ReplaySource(bundle))
            if call == "grow":
                more = lines[written : written + width]
                with path.open("ab") as out:
                    out.write(b"".join(line + b"\n" for line in more))
                written += len(more)
            elif call == "current_scn":
                assert lazy.current_scn() == whole.current_scn()
            elif call == "open_transactions":
                assert lazy.open_transaction_start_scn(scn_at) == whole.open_transaction_start_scn(
                    scn_at
                )
            else:
                with lazy.mine(scn_at, scn_at + width, []) as got:
                    mined = [(row.scn, row.xid, row.operation_code) for row in got]
                with whole.mine(scn_at, scn_at + width, []) as expected:
                    assert mined == [(row.scn, row.xid, row.operation_code) for row in expected]
        assert _state(_loaded(lazy)) == _state(_loaded(ReplaySource(bundle)))
    finally:
        logminer_file._BLOCK_BYTES = saved


def test_the_current_scn_reads_the_last_line_not_the_whole_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The laziness the test above allows is there: a bundle's current SCN and its first
    window index a few blocks, not the file."""
    bundle = _write(tmp_path, [_line(scn, code=6) for scn in range(1, 2001)], None)
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", 4096)
    source = ReplaySource(bundle)
    assert source.current_scn() == 2000
    assert len(source._scns) == 0
    with source.mine(1, 10, []) as rows:
        assert [row.scn for row in rows] == list(range(1, 11))
    assert 10 < len(source._scns) < 200
    assert source.open_transaction_start_scn(500) == 1  # "1.2.3" starts and never ends
    assert 500 < len(source._scns) < 700


def test_a_line_read_before_its_newline_keeps_later_line_numbers(tmp_path: Path) -> None:
    bundle = _write(tmp_path, [_line(1)], _line(2))
    source = ReplaySource(bundle)
    assert source.current_scn() == 2  # the last line decodes whole: indexed
    with (bundle / fmt.LOGMINER_FILE).open("ab") as out:
        out.write(b"\r\n" + _line(1) + b"\n")
    with pytest.raises(BundleError, match=r"logminer.jsonl:3: rows are not in SCN order"):
        source.current_scn()


def test_a_last_line_longer_than_the_bytes_read_at_the_end_is_indexed(tmp_path: Path) -> None:
    long_line = _line(7, SQL_REDO="x" * (3 * logminer_file._TAIL_BYTES))
    bundle = _write(tmp_path, [_line(5), long_line], None)
    assert logminer_file.last_line_scn(bundle, 0) is None
    source = ReplaySource(bundle)
    assert source.current_scn() == 7
    assert list(source._scns) == [5, 7]


def _blocks_of_two_lines(lines: list[bytes]) -> int:
    """A block size that puts two lines of ``lines`` (all of one length) in each block."""
    assert len({len(line) for line in lines}) == 1
    return 2 * (len(lines[0]) + 1)


def test_rows_of_a_window_end_scn_split_across_blocks_are_all_mined(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SCN 11 has a row in each of two blocks: the window ending at 11 reads both, whether
    the index stopped after the first block before (open transactions at 10) or not."""
    lines = [_line(scn, "1.2.3", 7) for scn in (10, 11, 11, 12, 13, 14)]
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", _blocks_of_two_lines(lines))
    bundle = _write(tmp_path, lines, None)
    for first_indexed_through in (None, 10):
        source = ReplaySource(bundle)
        if first_indexed_through is not None:
            source.open_transaction_start_scn(first_indexed_through)
            assert list(source._scns) == [10, 11]  # one block: the laziness is there
        with source.mine(10, 11, []) as rows:
            assert [row.scn for row in rows] == [10, 11, 11]
        with source.mine(11, 11, []) as rows:
            assert [row.scn for row in rows] == [11, 11]


def test_a_last_line_out_of_scn_order_fails_the_window_that_reaches_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The current SCN is the last line's (25); its line is out of order only against rows
    the index has not reached: the window up to 25 indexes to the end and fails."""
    lines = [_line(scn, "1.2.3", 7) for scn in (10, 20, 30, 40, 25)]
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", _blocks_of_two_lines(lines))
    bundle = _write(tmp_path, lines, None)
    extracting, mining = ReplaySource(bundle), ReplaySource(bundle)
    assert extracting.snapshot_point([]).scn == 25
    for source, end in ((mining, 25), (ReplaySource(bundle), 30)):
        with (
            pytest.raises(BundleError, match=r"logminer.jsonl:5: rows are not in SCN order"),
            source.mine(10, end, []) as rows,
        ):
            list(rows)


def test_a_file_rewritten_smaller_after_its_growth_was_seen_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The size current_scn saw counts: a rewrite smaller than it, though larger than what
    was indexed, starts the index over."""
    first = [_line(scn, "1.2.3", 7) for scn in range(100, 104)]
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", _blocks_of_two_lines(first))
    bundle = _write(tmp_path, first, None)
    path = bundle / fmt.LOGMINER_FILE
    source = ReplaySource(bundle)
    with source.mine(100, 100, []) as rows:
        assert [row.scn for row in rows] == [100]
    with path.open("ab") as out:
        out.write(b"".join(_line(scn, "1.2.3", 7) + b"\n" for scn in range(104, 108)))
    assert source.current_scn() == 107
    path.write_bytes(b"".join(_line(scn, "1.2.3", 7) + b"\n" for scn in range(200, 206)))
    with source.mine(200, 205, []) as rows:
        assert [row.scn for row in rows] == list(range(200, 206))
    assert source.open_transaction_start_scn(205) is None
