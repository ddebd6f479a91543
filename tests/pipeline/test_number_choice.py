"""``number_as``: unbounded NUMBER and FLOAT land as STRING (exact, the default), DOUBLE or
DECIMAL(38,s) (rounded as Oracle's ROUND), from the snapshot and from the log alike; a value
DECIMAL(38,s) cannot hold is quarantined, never landed wrong. On the simulator, landing into
in-memory staging tables; ``verify``'s source digests follow the choice."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from extractor.config import OracdcConfig, config_from_mapping
from extractor.dictionary import ColumnDef, TableDef
from extractor.errors import ConfigError, SyncStepError
from extractor.nls import NlsSettings
from extractor.parse.value_typing import _converter
from extractor.pipeline.extractor import open_extractor
from extractor.pipeline.sync import extract_and_land
from extractor.sim.database import SimDatabase
from extractor.source.factory import open_source
from extractor.verify.source_digest import SourceDigests, digest_statement
from tests.e2e.memory_staging import MemoryStagingWriter, extract_into_memory
from tests.pipeline.reference_replica import consolidate

T = TableDef(
    "APP",
    "MEASURES",
    (
        ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
        ColumnDef("AMOUNT", 2, "NUMBER", 22),
        ColumnDef("RATIO", 3, "FLOAT", 22, 63),
        ColumnDef("QTY", 4, "NUMBER", 22, 10, 2),
    ),
    ("ID",),
)


def _config(work: Path, **settings: Any) -> OracdcConfig:
    return config_from_mapping(
        {"source": {"kind": "sim"}, "tables": ["APP.*"], "data_dir": "data",
         "staging_schema": "t_numbers", "error_policy": "warn", **settings},
        base_dir=work,
    )  # fmt: skip


def _database() -> SimDatabase:
    db = SimDatabase()
    db.create_table(T)
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 1, "AMOUNT": Decimal("12.345"), "RATIO": Decimal("0.1"),
                                   "QTY": Decimal("1.5")})  # fmt: skip
    txn.insert("APP", "MEASURES", {"ID": 2, "AMOUNT": Decimal("-0.005"), "RATIO": None,
                                   "QTY": None})  # fmt: skip
    txn.commit()
    return db


CHOICES = {
    "number_as": "double",
    "columns": {"APP.MEASURES": {"number_as": {"AMOUNT": "decimal(38,2)"}}},
}


def test_the_choices_land_from_the_snapshot_and_the_log_alike(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, **CHOICES)
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 3, "AMOUNT": Decimal("12.345"), "RATIO": Decimal("0.1"),
                                   "QTY": Decimal("2")})  # fmt: skip
    txn.update("APP", "MEASURES", lambda row: row["ID"] == 2, {"AMOUNT": Decimal("7.125")})
    txn.commit()
    extract_into_memory(db, config, writer)

    columns = dict(writer._table_columns[writer.staging_table(T)])
    assert columns["amount"] == "DECIMAL(38,2)" and columns["ratio"] == "DOUBLE"
    assert columns["qty"] == "DECIMAL(10,2)"  # a bounded NUMBER keeps its exact type
    replica = {int(k[0]): v for k, v in consolidate(T, writer.staged_rows(T)).items()}
    # 12.345 rounds half away from zero, from the snapshot (id 1) and the log (id 3) alike
    assert replica[1]["amount"] == replica[3]["amount"] == Decimal("12.35")
    assert replica[2]["amount"] == Decimal("7.13")
    assert replica[1]["ratio"] == replica[3]["ratio"] == 0.1
    assert replica[2]["ratio"] is None


def test_by_default_they_land_as_exact_text(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path)
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    replica = {int(k[0]): v for k, v in consolidate(T, writer.staged_rows(T)).items()}
    assert replica[1]["amount"] == "12.345" and replica[2]["amount"] == "-0.005"


def test_a_value_decimal_38_s_cannot_hold_is_quarantined(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, number_as="decimal(38,30)")
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 4, "AMOUNT": Decimal("123456789"), "RATIO": None,
                                   "QTY": None})  # fmt: skip
    txn.commit()
    extract_into_memory(db, config, writer)
    (quarantined,) = writer.quarantined_rows()
    assert "does not fit DECIMAL(38,30)" in quarantined["reason"]
    assert 4 not in {int(r["id"]) for r in writer.staged_rows(T) if r["id"] is not None}


def test_the_converter_rounds_as_oracle_round() -> None:
    column = ColumnDef("AMOUNT", 2, "NUMBER", 22, landed_as="DECIMAL(38,2)")
    convert = _converter(column)
    nls = NlsSettings()
    assert convert("12.345", nls) == Decimal("12.35")
    assert convert("-12.345", nls) == Decimal("-12.35")
    assert convert("12.344", nls) == Decimal("12.34")
    assert convert("1E+3", nls) == Decimal("1000.00")
    with pytest.raises(ValueError, match="does not fit"):
        convert("1" + "0" * 36, nls)
    double = _converter(ColumnDef("RATIO", 3, "FLOAT", 22, 63, landed_as="DOUBLE"))
    assert double("0.1", nls) == 0.1


def test_verify_reads_what_landed(tmp_path: Path) -> None:
    """The source digests of a column landing as DECIMAL(38,2) are of the rounded value (the
    Oracle expression rounds; the simulator answers it from its truth by the same rules)."""
    db = _database()
    config = _config(tmp_path, **CHOICES)
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
        (typed,) = extractor.registry.resolve()
    statement = digest_statement(typed, per_column=True)
    assert 'ROUND("AMOUNT", 2)' in statement and 'TO_BINARY_DOUBLE("RATIO")' in statement
    digests = SourceDigests(source, db.current_scn())
    assert digests.count(typed) == 2
    from extractor.verify.digest_rows import BucketRange

    rows = list(digests.digests(typed, BucketRange(0, 4095), per_column=True))
    assert len(rows) == 2


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"number_as": "float"}, "'float' is not a number_as choice"),
        ({"number_as": "decimal(20,2)"}, "'decimal(20,2)' is not a number_as choice"),
        ({"number_as": "decimal(38,39)"}, "is not a number_as choice"),
        ({"columns": {"APP.MEASURES": {"number_as": ["AMOUNT"]}}}, "number_as must map columns"),
    ],
)
def test_a_bad_choice_is_refused_in_one_line(
    tmp_path: Path, settings: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _config(tmp_path, **settings)


def test_a_choice_for_a_column_of_an_exact_type_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path, columns={"APP.MEASURES": {"number_as": {"QTY": "double"}}})
    with pytest.raises(SyncStepError, match=r"APP.MEASURES.QTY: .* it is NUMBER\(10,2\)"):
        extract_into_memory(_database(), config, MemoryStagingWriter(config.staging_schema))


def test_a_snapshot_meeting_a_value_decimal_38_s_cannot_hold_fails_with_the_reason(
    tmp_path: Path,
) -> None:
    db = _database()
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 5, "AMOUNT": Decimal("123456789"), "RATIO": None,
                                   "QTY": None})  # fmt: skip
    txn.commit()
    config = _config(tmp_path, number_as="decimal(38,30)")
    writer = MemoryStagingWriter(config.staging_schema)
    with pytest.raises(SyncStepError, match=r"does not fit DECIMAL\(38,30\)") as raised:
        extract_into_memory(db, config, writer)
    assert "number_as" in (raised.value.fix or "")
    assert writer.staged_rows(T) == []


def test_key_and_masked_columns_stay_exact_under_a_global_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rounded key would merge distinct rows (2^53 and 2^53 + 1 as doubles); a masked
    column hashes its exact text whatever number_as says."""
    monkeypatch.setenv("ORACDC_MASK_SALT", "a-salt-of-sixteen-chars")
    keyed = TableDef("APP", "BIG", (ColumnDef("ID", 1, "NUMBER", 22, nullable=False),
                                    ColumnDef("SECRET", 2, "NUMBER", 22),
                                    ColumnDef("V", 3, "NUMBER", 22)), ("ID",))  # fmt: skip
    db = SimDatabase()
    db.create_table(keyed)
    txn = db.begin()
    for key in (2**53, 2**53 + 1):
        txn.insert("APP", "BIG", {"ID": Decimal(key), "SECRET": Decimal("1.50"), "V": Decimal(key)})
    txn.commit()
    config = _config(tmp_path, number_as="double",
                     columns={"APP.BIG": {"mask": {"SECRET": "hash"}}})  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    extract_into_memory(db, config, writer)
    replica = consolidate(keyed, writer.staged_rows(keyed))
    assert sorted(k[0] for k in replica) == [str(2**53), str(2**53 + 1)]  # two rows, exact keys
    assert {v["v"] for v in replica.values()} == {float(2**53)}  # the other column is a double
    from extractor.land.column_masking import masked_text

    expected = masked_text("1.5", "hash", b"a-salt-of-sixteen-chars")
    assert {v["secret"] for v in replica.values()} == {expected}
    for named, why in (("ID", "primary key column stays exact"), ("SECRET", "masked column")):
        entry = {"mask": {"SECRET": "hash"}, "number_as": {named: "double"}}
        refused = _config(tmp_path, columns={"APP.BIG": entry})
        with pytest.raises(SyncStepError, match=why):
            extract_into_memory(db, refused, MemoryStagingWriter(config.staging_schema))


def test_a_replay_bundle_lands_the_choices_too(tmp_path: Path) -> None:
    from extractor.source.replay.recorder import record_bundle

    db = _database()
    bundle = record_bundle(db, tmp_path / "bundle")
    config = config_from_mapping(
        {"source": {"kind": "replay", "path": str(bundle)}, "tables": ["APP.*"],
         "data_dir": "data", "staging_schema": "t_numbers", **CHOICES},
        base_dir=tmp_path,
    )  # fmt: skip
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source(config.source)
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})
    replica = {int(k[0]): v for k, v in consolidate(T, writer.staged_rows(T)).items()}
    assert replica[1]["amount"] == Decimal("12.35") and replica[1]["ratio"] == 0.1
    assert replica[2]["amount"] == Decimal("-0.01")


def test_an_unreadable_row_as_of_its_scn_is_quarantined_not_a_crash() -> None:
    """An ambiguous statement is decided by the row AS OF its commit; a value number_as
    cannot hold in that row makes it unreadable: the statement is quarantined."""
    from extractor.logminer_row import OperationCode
    from extractor.parse.change_builder import ChangeBuilder, TransactionInfo

    columns = (ColumnDef("ID", 1, "NUMBER", 22, 10, 0, nullable=False),
               ColumnDef("A", 2, "VARCHAR2", 50), ColumnDef("B", 3, "VARCHAR2", 50))  # fmt: skip
    # PRIMARY KEY logging: N is not in the statement, only in the row read AS OF its SCN
    table = TableDef("APP", "T", (*columns, ColumnDef("N", 4, "NUMBER", 22)), ("ID",),
                     "PRIMARY KEY")  # fmt: skip
    db = SimDatabase()
    db.create_table(table)
    txn = db.begin()
    txn.insert("APP", "T", {"ID": 1, "A": "a", "B": "b", "N": Decimal("123456789")})
    txn.commit()
    db.undoubled_quote_ratio = 1.0
    txn = db.begin()
    txn.update("APP", "T", lambda row: row["ID"] == 1, {"A": "x', \"B\" = 'y", "B": "z"})
    txn.commit()
    chosen = ColumnDef("N", 4, "NUMBER", 22, landed_as="DECIMAL(38,30)")
    typed = TableDef("APP", "T", (*columns, chosen), ("ID",), "PRIMARY KEY")
    source = open_source({"kind": "sim", "database": db})
    rows = db.logminer_contents(0, db.current_scn())
    (update,) = [r for r in rows if r.operation_code == OperationCode.UPDATE]
    commit = next(
        r for r in rows if r.xid == update.xid and r.operation_code == OperationCode.COMMIT
    )
    builder = ChangeBuilder(lambda o, n, refresh: typed, lambda o, n: True, db.nls,
                            row_as_of=source.row_as_of)  # fmt: skip
    changes = builder.build(TransactionInfo(update.xid, commit.scn, None), [update])
    (quarantined,) = changes.quarantined
    assert "cannot be read AS OF its SCN" in quarantined.reason
    assert "does not fit DECIMAL(38,30)" in quarantined.reason


def test_a_heartbeat_needs_mining_to_have_moved_and_no_table_waiting(tmp_path: Path) -> None:
    db = _database()
    db.create_table(TableDef("APP", "OTHER", T.columns[:1], ("ID",)))
    config = _config(tmp_path, heartbeat_interval_seconds=0.000001)
    writer = MemoryStagingWriter(config.staging_schema)
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        assert any(n.endswith("_oracdc_heartbeat`") for n in writer._table_columns)  # at open
        extract_and_land(extractor, {})
        beats = lambda: [r for b in writer._batches.get("`t_numbers`.`_oracdc_heartbeat`", [])  # noqa: E731
                         for r in b.to_pylist()]  # fmt: skip
        assert len(beats()) == 1
        extractor.stream_once()  # nothing mined since: no new heartbeat
        assert len(beats()) == 1
        txn = db.begin()
        txn.insert("APP", "MEASURES", {"ID": 7, "AMOUNT": None, "RATIO": None, "QTY": None})
        txn.commit()
        extractor.take_again([T], "test")  # a table waiting for its snapshot
        extractor.stream_once()
        assert len(beats()) == 1
        extract_and_land(extractor, {})  # snapshot taken, mining moves on
        assert len(beats()) == 2 and beats()[1]["mined_to_scn"] > beats()[0]["mined_to_scn"]
