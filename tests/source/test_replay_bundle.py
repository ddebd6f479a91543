"""Replay bundles: the contract of docs/replay-bundle.md, bad bundles, round trip, growth."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import BundleError, MissingRedoLogError, SnapshotTooOldError, ValueCodecError
from extractor.logminer_row import LogMinerRow
from extractor.sim.column_values import BcDate
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadResult
from extractor.source.replay import logminer_file
from extractor.source.replay.recorder import record_bundle
from extractor.source.replay.replay_source import ReplaySource

_NLS = {
    "NLS_DATE_FORMAT": "YYYY-MM-DD HH24:MI:SS",
    "NLS_TIMESTAMP_FORMAT": "YYYY-MM-DD HH24:MI:SS.FF9",
    "NLS_TIMESTAMP_TZ_FORMAT": "YYYY-MM-DD HH24:MI:SS.FF9 TZH:TZM",
    "NLS_NUMERIC_CHARACTERS": ".,",
    "TIME_ZONE": "00:00",
}
_TABLE = {
    "owner": "HR", "table_name": "EMPLOYEES", "supplemental_logging": "ALL",
    "primary_key": ["EMPLOYEE_ID"],
    "columns": [
        {"column_name": "EMPLOYEE_ID", "column_id": 1, "data_type": "NUMBER", "data_length": 22,
         "data_precision": 6, "data_scale": 0, "nullable": "N"},
        {"column_name": "HIRE_DATE", "column_id": 2, "data_type": "DATE", "data_length": 7,
         "data_precision": None, "data_scale": None, "nullable": "N"},
        {"column_name": "BONUS", "column_id": 3, "data_type": "NUMBER", "data_length": 22,
         "data_precision": None, "data_scale": None, "nullable": "Y"},
        {"column_name": "SEEN", "column_id": 4, "data_type": "TIMESTAMP(6) WITH TIME ZONE",
         "data_length": 13, "data_precision": None, "data_scale": 6, "nullable": "Y"},
        {"column_name": "BADGE", "column_id": 5, "data_type": "RAW", "data_length": 4,
         "data_precision": None, "data_scale": None, "nullable": "Y"},
    ],
}  # fmt: skip
_INSERT = {
    "SCN": 1001, "START_SCN": None, "COMMIT_SCN": None, "TIMESTAMP": "2024-01-01T00:00:01",
    "COMMIT_TIMESTAMP": None, "XID": "0A0001000000ABCD", "OPERATION": "INSERT",
    "OPERATION_CODE": 1, "SEG_OWNER": "HR", "TABLE_NAME": "EMPLOYEES",
    "ROW_ID": "AAAS5GAAEAAAAJPAAB", "RS_ID": " 0x000c5d.00000271.0010 ", "SSN": 0, "CSF": 0,
    "ROLLBACK": 0, "STATUS": 0, "INFO": None, "USERNAME": "HR",
    "SQL_REDO": 'insert into "HR"."EMPLOYEES"("EMPLOYEE_ID") values (\'101\');',
}  # fmt: skip


def _write(path: Path, value: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value), encoding="utf-8")


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    """A bundle written by hand from the contract's examples."""
    _write(tmp_path / "bundle.json", {"format": "oracdc-replay/1", "database": "ORCLPDB1",
                                      "nls": _NLS})  # fmt: skip
    _write(tmp_path / "dictionary.json", {"tables": [_TABLE]})
    snapshot = [
        {"scn": 1000},
        {"ROWID": "AAAS5GAAEAAAAJPAAA", "EMPLOYEE_ID": "100", "HIRE_DATE": "2003-06-17T00:00:00",
         "BONUS": "1.50", "SEEN": "2024-02-14T10:58:02.202590+01:00", "BADGE": "0e1f"},
    ]  # fmt: skip
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "HR.EMPLOYEES.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in snapshot), encoding="utf-8"
    )
    (tmp_path / "logminer.jsonl").write_text(json.dumps(_INSERT) + "\n", encoding="utf-8")
    return tmp_path


def test_hand_written_snapshot_values_follow_the_type_mapping(bundle: Path) -> None:
    source = ReplaySource(bundle)
    table = source.table("HR", "EMPLOYEES")
    (row,) = [r for b in source.snapshot_batches(table, 1000, 10) for r in b.to_pylist()]
    assert row == {
        "employee_id": Decimal("100"),
        "hire_date": datetime(2003, 6, 17),
        "bonus": "1.5",
        "seen": datetime(2024, 2, 14, 9, 58, 2, 202590, tzinfo=UTC),
        "badge": b"\x0e\x1f",
        "_row_id": "AAAS5GAAEAAAAJPAAA",
    }


def test_hand_written_logminer_row_keeps_rs_id_padding(bundle: Path) -> None:
    source = ReplaySource(bundle)
    with source.mine(1001, 1001, [source.table("HR", "EMPLOYEES")]) as rows:
        (row,) = list(rows)
    assert row.rs_id == " 0x000c5d.00000271.0010 "
    assert row.row_id == "AAAS5GAAEAAAAJPAAB"


def test_current_scn_is_the_largest_scn_in_the_log(bundle: Path) -> None:
    assert ReplaySource(bundle).current_scn() == 1001


def test_a_read_at_another_scn_says_a_bundle_holds_one_scn(bundle: Path) -> None:
    source = ReplaySource(bundle)
    with pytest.raises(SnapshotTooOldError, match="holds its snapshot at SCN 1000") as refused:
        list(source.snapshot_batches(source.table("HR", "EMPLOYEES"), 1001, 10))
    assert refused.value.fix and "replay bundle holds each table at its snapshot SCN" in (
        refused.value.fix
    )
    assert "UNDO_RETENTION" not in refused.value.one_line()  # not an Oracle's fix


def test_snapshot_point_is_the_snapshot_files_scn(bundle: Path) -> None:
    source = ReplaySource(bundle)
    point = source.snapshot_point([source.table("HR", "EMPLOYEES")])
    assert point.scn == 1000


def _add_table(bundle: Path, name: str, snapshot_scn: int | None) -> None:
    """A copy of HR.EMPLOYEES named ``name``, with an empty snapshot at ``snapshot_scn``
    (None: no snapshot file, the table is replicated from the log only)."""
    dictionary = json.loads((bundle / "dictionary.json").read_text())
    dictionary["tables"].append({**_TABLE, "table_name": name})
    _write(bundle / "dictionary.json", dictionary)
    if snapshot_scn is not None:
        _write(bundle / "snapshots" / f"HR.{name}.jsonl", {"scn": snapshot_scn})


def _row(scn: int, xid: str, table: str, end: bool = False) -> dict[str, object]:
    code = 7 if end else 1
    return {**_INSERT, "SCN": scn, "XID": xid, "TABLE_NAME": table, "OPERATION_CODE": code,
            "OPERATION": "COMMIT" if end else "INSERT"}  # fmt: skip


def test_snapshot_point_gives_each_table_its_own_scn(bundle: Path) -> None:
    """Two snapshots at different SCNs and a log-only table, asked for together (tables:
    [HR.*]): each table gets its own SCN; mining starts low enough for all of them."""
    _add_table(bundle, "LATER", 1005)
    _add_table(bundle, "LOGONLY", None)
    lines = [
        _INSERT,  # 1001, XID ...ABCD: open at 1000 and at 1005
        _row(1003, "0A0001000000ABCE", "LATER"),
        _row(1004, "0A0001000000ABCE", "LATER", end=True),
        _row(1007, "0A0001000000ABCD", "EMPLOYEES", end=True),
    ]
    (bundle / "logminer.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    source = ReplaySource(bundle)
    tables = source.list_tables([("HR", "*")])

    point = source.snapshot_point(tables)

    assert {t.name: point.scn_of(t) for t in tables} == {
        "EMPLOYEES": 1000,
        "LATER": 1005,
        "LOGONLY": 1000,  # just below the first recorded SCN
    }
    assert point.mining_start_scn == 1001  # ...ABCD, open at 1005, started at 1001
    logonly = source.table("HR", "LOGONLY")
    assert list(source.snapshot_batches(logonly, point.scn_of(logonly), 10)) == []


def test_unknown_format_version_is_refused(bundle: Path) -> None:
    _write(bundle / "bundle.json", {"format": "oracdc-replay/2", "database": "X", "nls": _NLS})
    with pytest.raises(BundleError, match=r"bundle\.json.*oracdc-replay/2"):
        ReplaySource(bundle)


def test_missing_dictionary_names_the_file(bundle: Path) -> None:
    (bundle / "dictionary.json").unlink()
    with pytest.raises(BundleError, match=r"dictionary\.json: is missing"):
        ReplaySource(bundle).table("HR", "EMPLOYEES")


def test_malformed_logminer_line_names_file_and_line(bundle: Path) -> None:
    with (bundle / "logminer.jsonl").open("a") as out:
        out.write("{not json\n")
    with pytest.raises(BundleError, match=r"logminer.jsonl:2:"):
        ReplaySource(bundle).current_scn()


def test_misspelt_logminer_key_is_refused(bundle: Path) -> None:
    bad = dict(_INSERT)
    bad["scn"] = bad.pop("SCN")
    (bundle / "logminer.jsonl").write_text(json.dumps(bad) + "\n")
    with pytest.raises(BundleError, match=r"logminer\.jsonl:1:.*'SCN'"):
        ReplaySource(bundle).current_scn()


def test_further_upper_case_logminer_columns_are_ignored_lower_case_ones_refused(
    bundle: Path,
) -> None:
    production = {**_INSERT, "SQL_UNDO": "delete ...", "DATA_OBJ#": 7}
    (bundle / "logminer.jsonl").write_text(json.dumps(production) + "\n")
    assert ReplaySource(bundle).current_scn() == _INSERT["SCN"]
    (bundle / "logminer.jsonl").write_text(json.dumps({**_INSERT, "sql_undo": "x"}) + "\n")
    source = ReplaySource(bundle)
    # the SCN index reads only SCN, XID and OPERATION_CODE; the whole line is checked when mined
    assert source.current_scn() == _INSERT["SCN"]
    with (
        pytest.raises(BundleError, match=r"logminer\.jsonl:1: unknown key 'sql_undo'"),
        source.mine(_INSERT["SCN"], _INSERT["SCN"], []) as rows,
    ):
        list(rows)


def test_index_fields_of_another_json_type_are_read_as_a_whole_row_reads_them(
    bundle: Path,
) -> None:
    as_text = {**_INSERT, "SCN": str(_INSERT["SCN"]), "OPERATION_CODE": "1"}
    (bundle / "logminer.jsonl").write_text(json.dumps(as_text) + "\n")
    assert ReplaySource(bundle).current_scn() == _INSERT["SCN"]
    (bundle / "logminer.jsonl").write_text(json.dumps({**_INSERT, "SCN": "ten"}) + "\n")
    with pytest.raises(BundleError, match=r"logminer\.jsonl:1: bad value"):
        ReplaySource(bundle).current_scn()


def test_an_error_found_when_mining_names_the_files_line_not_the_windows(bundle: Path) -> None:
    rows = [
        {**_INSERT, "SCN": 1001 + n, "RS_ID": f" 0x000c5d.{0x271 + n:08x}.0010 "} for n in range(5)
    ]
    del rows[3]["RS_ID"]  # line 4
    (bundle / "logminer.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    source = ReplaySource(bundle)
    assert source.current_scn() == 1005
    with (
        pytest.raises(BundleError, match=r"logminer\.jsonl:4: missing RS_ID"),
        source.mine(1003, 1005, []) as mined,
    ):
        list(mined)


def test_a_last_line_without_newline_is_indexed_only_once_it_decodes_whole(bundle: Path) -> None:
    later = json.dumps({**_INSERT, "SCN": 1002, "SQL_REDO": "x"}).encode()
    not_utf8 = later.replace(b'"x"', b'"\xff"')  # valid JSON structure, invalid UTF-8
    with (bundle / "logminer.jsonl").open("ab") as out:
        out.write(not_utf8)  # no newline: still being written
    source = ReplaySource(bundle)
    assert source.current_scn() == _INSERT["SCN"]  # not indexed, so not mined past
    (bundle / "logminer.jsonl").write_bytes(
        (bundle / "logminer.jsonl").read_bytes()[: -len(not_utf8)] + later + b"\n"
    )
    assert source.current_scn() == 1002
    with source.mine(1001, 1002, [source.table("HR", "EMPLOYEES")]) as mined:
        assert [row.scn for row in mined] == [1001, 1002]


def test_index_and_mined_rows_agree_line_for_line(bundle: Path) -> None:
    lines = (bundle / "logminer.jsonl").read_bytes()
    (bundle / "logminer.jsonl").write_bytes(lines + b"\n" + lines)  # a blank line between
    index = list(logminer_file.iter_logminer_index(bundle))
    mined = list(logminer_file.iter_logminer(bundle))
    assert len(index) == len(mined) >= 2
    for entry, (number, start, end, row) in zip(index, mined, strict=True):
        assert (entry.number, entry.start, entry.end) == (number, start, end)
        assert (entry.scn, entry.xid, entry.operation_code) == (
            row.scn,
            row.xid,
            row.operation_code,
        )


def test_a_logminer_line_that_is_not_utf8_names_file_and_line(bundle: Path) -> None:
    with (bundle / "logminer.jsonl").open("ab") as out:
        out.write(b'{"SCN": "\xff"}\n')
    with pytest.raises(BundleError, match=r"logminer.jsonl:2: not a JSON object"):
        ReplaySource(bundle).current_scn()


def test_unknown_snapshot_column_names_file_and_line(bundle: Path) -> None:
    path = bundle / "snapshots" / "HR.EMPLOYEES.jsonl"
    path.write_text('{"scn": 1000}\n{"ROWID": "AAAS5GAAEAAAAJPAAA", "SALARY": "1"}\n')
    source = ReplaySource(bundle)
    with pytest.raises(BundleError, match=r"HR.EMPLOYEES.jsonl:2: unknown column"):
        list(source.snapshot_batches(source.table("HR", "EMPLOYEES"), 1000, 10))


def test_unavailable_log_fails_like_ora_01291(bundle: Path) -> None:
    _write(bundle / "logs.json", [
        {"thread": 1, "sequence": 120, "first_change": 900, "next_change": 1001,
         "name": "/arch/1_120.arc", "archived": True, "available": False},
        {"thread": 1, "sequence": 121, "first_change": 1001, "next_change": None,
         "name": "/redo/redo01.log", "archived": False, "available": True},
    ])  # fmt: skip
    source = ReplaySource(bundle)
    with source.mine(1001, 1001, []) as rows:
        list(rows)
    assert [log.describe() for log in source.last_window_logs()] == [
        "thread 1 sequence 121 (online) /redo/redo01.log"
    ]
    with pytest.raises(MissingRedoLogError), source.mine(950, 1001, []):
        pass


def test_growing_bundle_shows_appended_rows_to_the_same_source(bundle: Path) -> None:
    source = ReplaySource(bundle)
    assert source.current_scn() == 1001
    later = LogMinerRow.from_json({**_INSERT, "SCN": 1005, "ROW_ID": "AAAS5GAAEAAAAJPAAC"})
    logminer_file.append_logminer(bundle, [later])
    assert source.current_scn() == 1005
    with source.mine(1002, 1005, [source.table("HR", "EMPLOYEES")]) as rows:
        assert [r.scn for r in rows] == [1005]


def test_line_still_being_written_is_left_for_the_next_read(bundle: Path) -> None:
    with (bundle / "logminer.jsonl").open("a") as out:
        out.write('{"SCN": 10')
    assert ReplaySource(bundle).current_scn() == 1001


def test_round_trip_simulate_record_replay_gives_the_same_rows(
    tmp_path: Path, workload: tuple[SimDatabase, WorkloadResult]
) -> None:
    db, result = workload
    scn = (result.first_scn + result.end_scn) // 2
    tables = db.tables()
    record_bundle(db, tmp_path / "b", snapshot_scns={(t.owner, t.name): scn for t in tables},
                  since_scn=result.first_scn)  # fmt: skip
    source = ReplaySource(tmp_path / "b")
    assert sorted(source.list_tables([("*", "*")]), key=lambda t: t.name) == sorted(
        tables, key=lambda t: t.name
    )
    with source.mine(result.first_scn, result.end_scn, tables) as rows:
        assert list(rows) == db.logminer_contents(result.first_scn, result.end_scn)
    for table in tables:
        replayed = [r for b in source.snapshot_batches(table, scn, 64) for r in b.to_pylist()]
        truth = db.truth(table.owner, table.name, scn)
        assert len(replayed) == len(truth)
        by_rowid = {r["_row_id"]: r for r in replayed}
        for row in truth:
            got = by_rowid[str(row["ROWID"])]
            for column in table.columns:
                want = row[column.name]
                have = got[column.name.lower()]
                if isinstance(want, float) and want != want:
                    assert have != have
                else:
                    assert have == want, (table.name, column.name)


_CONTRACT_LINE = {
    "SCN": 1001, "START_SCN": 1000, "COMMIT_SCN": None, "TIMESTAMP": "2026-01-01T00:00:00",
    "COMMIT_TIMESTAMP": None, "XID": "0A00010000000001", "OPERATION": "INSERT",
    "OPERATION_CODE": 1, "SEG_OWNER": "HR", "TABLE_NAME": "EMPLOYEES", "ROW_ID": "AAAA",
    "RS_ID": " 0x000001.00000002.0010 ", "SSN": 0, "CSF": 0, "ROLLBACK": 0, "STATUS": 0,
    "INFO": None, "USERNAME": "HR", "SQL_REDO": "insert into x values ('it''s')",
}  # fmt: skip


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"DATA_OBJ#": 73001},
        {"OPERATION": None},  # the text follows the code
        {"OPERATION": ""},
        {"SSN": None, "CSF": None, "ROLLBACK": None, "STATUS": None},
        {"SCN": "1001"},  # a number written as text: only the tolerant reading takes it
        {"OPERATION_CODE": "3"},
        {"TIMESTAMP": 5},
        {"EXTRA_ORACLE_COLUMN": "x"},  # a further upper-case column: ignored
        {"SQL_REDO": 'insert \u00e9 \\u00e9 "q"'},
    ],
)
def test_the_contract_decoder_and_the_tolerant_one_give_the_same_row(
    changes: dict[str, object],
) -> None:
    raw = {**_CONTRACT_LINE, **changes}
    line = json.dumps(raw).encode()
    tolerant = logminer_file._logminer_row(Path("logminer.jsonl"), 1, json.loads(line))
    fast = logminer_file._contract_row(line)
    assert fast is None or fast == tolerant
    assert next(iter(_mined_lines(line)))[3] == tolerant


@pytest.mark.parametrize("changes", [{"SCN": None}, {"XID": None}, {"scn": 1}, {"Sql_Redo": ""}])
def test_lines_outside_the_contract_are_refused_whichever_decoder_reads_first(
    changes: dict[str, object],
) -> None:
    raw = {**_CONTRACT_LINE, **changes}
    assert logminer_file._contract_row(json.dumps(raw).encode()) is None
    with pytest.raises(BundleError, match=r"logminer.jsonl:1: "):
        list(_mined_lines(json.dumps(raw).encode()))


def _mined_lines(line: bytes) -> list[tuple[int, int, int, LogMinerRow]]:
    import tempfile

    with tempfile.TemporaryDirectory() as directory:
        (Path(directory) / "logminer.jsonl").write_bytes(line + b"\n")
        return list(logminer_file.iter_logminer(Path(directory)))


def test_lines_across_read_blocks_keep_their_numbers_and_offsets(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = bundle / "logminer.jsonl"
    one = path.read_bytes()
    path.write_bytes(one + b"\n  \n" + one * 3)  # blank lines are counted, not yielded
    whole = list(logminer_file.iter_logminer(bundle))
    monkeypatch.setattr(logminer_file, "_BLOCK_BYTES", 7)  # every line spans several blocks
    assert list(logminer_file.iter_logminer(bundle)) == whole
    data = path.read_bytes()
    lines = data.split(b"\n")
    for number, start, end, row in whole:
        assert data[start:end] == lines[number - 1] + b"\n"
        assert row == logminer_file._logminer_row(path, number, json.loads(lines[number - 1]))
    stop = whole[2][2]
    assert list(logminer_file.iter_logminer(bundle, stop_offset=stop)) == whole[:3]
    assert list(logminer_file.iter_logminer(bundle, whole[1][1], whole[1][0])) == whole[1:]


def test_the_contract_decoder_has_every_field_of_a_logminer_row() -> None:
    """A field added to LogMinerRow must be decoded by the fast path too."""
    assert set(logminer_file._ContractRow.__struct_fields__) == set(LogMinerRow.__struct_fields__)


def test_a_snapshot_value_python_oracledb_cannot_fetch_is_refused_by_the_recorder(
    tmp_path: Path,
) -> None:
    """A DATE before 1 AD has no bundle encoding (a recording from Oracle cannot hold one:
    python-oracledb does not fetch it); the recorder names the table, row and column
    instead of failing inside ``json``."""
    events = TableDef(
        "APP", "EVENTS",
        (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False), ColumnDef("HAPPENED", 2, "DATE")),
        ("ID",),
    )  # fmt: skip
    db = SimDatabase()
    db.create_table(events)
    txn = db.begin()
    txn.insert("APP", "EVENTS", {"ID": 1, "HAPPENED": BcDate(datetime(4712, 1, 1))})
    txn.commit()
    scn = db.current_scn()
    with pytest.raises(ValueCodecError) as raised:
        record_bundle(db, tmp_path / "bc", snapshot_scns={("APP", "EVENTS"): scn})
    message = raised.value.one_line()
    assert f"snapshot of APP.EVENTS at SCN {scn}" in message
    assert "column HAPPENED (DATE)" in message
    assert "before 1 AD" in message
