"""WindowMiner: a window that ends inside a CSF chain is mined again larger, and never
past the target SCN (the chain's rest is not there yet: the next call mines it)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from pathlib import Path

from extractor.assemble.window_miner import MinedWindow, WindowMiner
from extractor.config import MiningSettings
from extractor.dictionary import TableDef
from extractor.logminer_row import LogMinerRow
from tests.assemble.rows import ROWID_2, XID_A, commit, insert, row, start

HEAD = 'insert into "SCOTT"."EMP"("EMPNO","NOTES") values (\'7\',\'' + "n" * 3970


class ChainAcrossSCNs:
    """Redo whose CSF chain starts at SCN 300 and ends at 302: a window ending at 300 or
    301 holds its first piece only."""

    def __init__(self) -> None:
        self.rows = [
            start(XID_A, 290),
            insert(XID_A, 295, 6),
            row(1, XID_A, 300, block=0x400, ssn=1, csf=1, row_id=ROWID_2, sql_redo=HEAD),
            row(1, XID_A, 302, block=0x400, ssn=1, csf=0, row_id=ROWID_2, sql_redo="');"),
            commit(XID_A, 310),
        ]
        self.windows: list[tuple[int, int]] = []
        self.session_starts: list[int | None] = []

    @contextmanager
    def mine(
        self,
        start_scn: int,
        end_scn: int,
        tables: Sequence[TableDef],
        session_start_scn: int | None = None,
    ) -> Iterator[Iterator[LogMinerRow]]:
        self.windows.append((start_scn, end_scn))
        self.session_starts.append(session_start_scn)
        yield iter([r for r in self.rows if start_scn <= r.scn <= end_scn])

    def last_window_logs(self) -> tuple[()]:
        return ()


def _miner(source: ChainAcrossSCNs, tmp_path: Path) -> WindowMiner:
    miner = WindowMiner(source, MiningSettings(window_scns=4), 1 << 20, tmp_path)  # type: ignore[arg-type]
    miner.reset(None)
    return miner


def test_a_chain_cut_at_the_target_ends_the_call_instead_of_mining_again_forever(
    tmp_path: Path,
) -> None:
    source = ChainAcrossSCNs()
    events = list(islice(_miner(source, tmp_path).mine([], 296, 300), 20))
    ends = [(e.start_scn, e.window_end) for e in events if isinstance(e, MinedWindow)]
    # [296, 299] is mined; [300, 300] is cut at its first SCN and cannot grow past 300
    assert ends == [(296, 299), (300, 299)]
    assert source.windows == [(296, 299), (300, 300)]


def test_the_chain_is_mined_whole_by_the_next_call_once_the_target_passes_it(
    tmp_path: Path,
) -> None:
    source = ChainAcrossSCNs()
    miner = _miner(source, tmp_path)
    list(islice(miner.mine([], 290, 300), 20))
    events = list(islice(miner.mine([], 300, 320), 20))
    committed = [e for e in events if not isinstance(e, MinedWindow)]
    assert [[r.sql_redo for r in t.rows] for t in committed] == [
        [source.rows[1].sql_redo, HEAD + "');"]
    ]
