"""The workload is deterministic, and its committed LogMiner changes rebuild truth().

The applier below is a deliberately tiny reference (regexes over SQL_REDO, literal values
decoded from Oracle's documented forms), independent of the product parser.
"""

from __future__ import annotations

import math
import re
import struct
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from extractor.dictionary import TableDef
from extractor.logminer_row import LogMinerRow
from extractor.sim.database import SimDatabase
from extractor.sim.workload import WorkloadSpec, run_workload
from extractor.values import canonical_decimal_text
from tests.sim.lob_inserts import with_insert_row_ids

_LITERAL = (
    r"(?:UNISTR\('(?:[^']|'')*'\)\|\|)*UNISTR\('(?:[^']|'')*'\)"
    r"|TO_\w+\('(?:[^']|'')*'(?:, '[^']*')?\)|HEXTORAW\('[0-9a-f]*'\)|'(?:[^']|'')*'"
    r"|NULL|EMPTY_[BC]LOB\(\)"
)
_ASSIGN = re.compile(rf'"(\w+)" = ({_LITERAL})')
_INSERT = re.compile(r'insert into "(\w+)"\."(\w+)"\(([^)]*)\) values \((.*)\);$', re.S)
_UPDATE = re.compile(r'update "(\w+)"\."(\w+)" set (.*?) where .*ROWID = \'([\w+/]+)\';$', re.S)
_DELETE = re.compile(r'delete from "(\w+)"\."(\w+)" where .*ROWID = \'([\w+/]+)\';$', re.S)


def _decode(data_type: str, text: str) -> object:
    if text in ("NULL",) or text.startswith("EMPTY_"):
        return None
    if text.startswith("UNISTR("):
        pieces = re.findall(r"UNISTR\('((?:[^']|'')*)'\)", text)
        raw = "".join(pieces).replace("''", "'")
        units = re.sub(r"\\([0-9A-F]{4})", lambda m: chr(int(m.group(1), 16)), raw)
        return units.encode("utf-16", "surrogatepass").decode("utf-16")
    if text.startswith("HEXTORAW("):
        return bytes.fromhex(text[10:-2])
    inner = re.match(r"(?:TO_\w+\()?'((?:[^']|'')*)'", text)
    assert inner is not None, text
    value = inner.group(1).replace("''", "'")
    if data_type == "DATE" or data_type.startswith("TIMESTAMP"):
        value = value.removeprefix(" ")  # SYYYY's sign position before an AD year
    if data_type == "DATE":
        return datetime.strptime(value, "%Y-%m-%d %H:%M:%S")
    if data_type.startswith("TIMESTAMP"):
        digits = int(data_type[10]) if data_type[9:10] == "(" else 6
        stamp, _, fraction_and_zone = value.partition(".")
        fraction, _, zone = fraction_and_zone.partition(" ")
        moment = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S")
        if zone:
            sign = -1 if zone[0] == "-" else 1
            hours, minutes = zone[1:].split(":")
            offset = timedelta(hours=int(hours), minutes=int(minutes)) * sign
            moment = (moment - offset).replace(tzinfo=UTC)
        if digits > 6:
            suffix = " +00:00" if zone else ""
            return f"{moment:%Y-%m-%d %H:%M:%S}.{fraction[:digits]}{suffix}"
        return moment.replace(microsecond=int(fraction[:6]))
    if data_type in ("BINARY_FLOAT", "BINARY_DOUBLE"):
        number = {"Nan": math.nan, "Inf": math.inf, "-Inf": -math.inf}.get(value) or float(value)
        if data_type == "BINARY_FLOAT":  # the single-precision value the text stands for
            number = struct.unpack("f", struct.pack("f", number))[0]
        return number
    if data_type in ("NUMBER", "FLOAT"):
        return Decimal(value)
    return value


def _typed(table: TableDef, name: str, text: str) -> object:
    value = _decode(table.column(name).data_type, text)
    if isinstance(value, Decimal) and table.column(name).data_precision is None:
        return canonical_decimal_text(value)
    if isinstance(value, Decimal) and table.column(name).data_type == "FLOAT":
        return canonical_decimal_text(value)
    return value


def _apply(
    rows: list[LogMinerRow], tables: dict[str, TableDef]
) -> dict[str, dict[str, dict[str, object]]]:
    """Committed DML applied in commit order, by ROW_ID; rolled-back work dropped."""
    by_xid: dict[str, list[tuple[str, str]]] = {}
    committed: list[tuple[str, str]] = []  # (ROW_ID, SQL_REDO)
    text = ""
    for row in with_insert_row_ids(rows):
        text += row.sql_redo or ""
        if row.csf:
            continue
        if row.operation_code in (1, 2, 3):
            by_xid.setdefault(row.xid, []).append((row.row_id or "", text))
        elif row.operation_code == 7:
            committed.extend(by_xid.pop(row.xid, []))
        elif row.operation_code == 36:
            by_xid.pop(row.xid, None)
        text = ""
    state: dict[str, dict[str, dict[str, object]]] = {name: {} for name in tables}
    for rowid, sql in committed:
        if match := _INSERT.match(sql):
            table = tables[match.group(2)]
            names = [n.strip('"') for n in match.group(3).split(",")]
            values = re.findall(_LITERAL, match.group(4))
            image: dict[str, object] = dict.fromkeys(table.column_names)
            image.update({n: _typed(table, n, v) for n, v in zip(names, values, strict=True)})
            state[table.name][rowid] = image
        elif match := _UPDATE.match(sql):
            table = tables[match.group(2)]
            target = state[table.name][match.group(4)]
            for name, literal in _ASSIGN.findall(match.group(3)):
                target[name] = _typed(table, name, literal)
        elif match := _DELETE.match(sql):
            del state[match.group(2)][match.group(3)]
        else:
            raise AssertionError(f"unreadable SQL_REDO: {sql[:200]}")
    return state


def _same(left: object, right: object) -> bool:
    if isinstance(left, float) and isinstance(right, float) and math.isnan(left):
        return math.isnan(right)
    return left == right


def test_same_seed_gives_the_same_redo() -> None:
    spec = WorkloadSpec(transactions=200, seed=7)
    first, second = SimDatabase(), SimDatabase()
    run_workload(first, spec)
    run_workload(second, spec)
    assert first.logminer_contents(0, first.current_scn()) == second.logminer_contents(
        0, second.current_scn()
    )


def test_different_seeds_give_different_redo() -> None:
    first, second = SimDatabase(), SimDatabase()
    run_workload(first, WorkloadSpec(transactions=50, seed=1))
    run_workload(second, WorkloadSpec(transactions=50, seed=2))
    sql = [
        [r.sql_redo for r in db.logminer_contents(0, db.current_scn())] for db in (first, second)
    ]
    assert sql[0] != sql[1]


def test_workload_mixes_rollbacks_open_transactions_and_csf() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(transactions=600, long_value_ratio=0.05, seed=3))
    rows = db.logminer_contents(0, db.current_scn())
    assert result.rolled_back > 0 and len(result.open_xids) == 2
    assert any(r.csf for r in rows)
    assert any(r.rollback and r.operation_code in (1, 2, 3) for r in rows)
    assert {x for x, _ in db.open_transactions()} == set(result.open_xids)


def test_committed_logminer_changes_rebuild_the_truth() -> None:
    db = SimDatabase()
    result = run_workload(db, WorkloadSpec(transactions=1500, long_value_ratio=0.03, seed=42))
    end = db.current_scn()
    tables = {t.name: t for t in result.tables}
    rebuilt = _apply(db.logminer_contents(0, end), tables)
    for table in result.tables:
        truth = {str(row.pop("ROWID")): row for row in db.truth(table.owner, table.name, end)}
        mine = rebuilt[table.name]
        assert set(mine) == set(truth), table.name
        for rowid, row in truth.items():
            for name, value in row.items():
                assert _same(value, mine[rowid][name]), (table.name, rowid, name, value)
