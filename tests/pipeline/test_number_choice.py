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
from tests.e2e.memory_staging import MemoryStagingWriter
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


def _run(db: SimDatabase, config: OracdcConfig, writer: MemoryStagingWriter) -> None:
    source = open_source({"kind": "sim", "database": db})
    with open_extractor(config, source, None, writer=writer) as extractor:
        extract_and_land(extractor, {})


CHOICES = {
    "number_as": "double",
    "columns": {"APP.MEASURES": {"number_as": {"AMOUNT": "decimal(38,2)"}}},
}


def test_the_choices_land_from_the_snapshot_and_the_log_alike(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, **CHOICES)
    writer = MemoryStagingWriter(config.staging_schema)
    _run(db, config, writer)
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 3, "AMOUNT": Decimal("12.345"), "RATIO": Decimal("0.1"),
                                   "QTY": Decimal("2")})  # fmt: skip
    txn.update("APP", "MEASURES", lambda row: row["ID"] == 2, {"AMOUNT": Decimal("7.125")})
    txn.commit()
    _run(db, config, writer)

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
    _run(db, config, writer)
    replica = {int(k[0]): v for k, v in consolidate(T, writer.staged_rows(T)).items()}
    assert replica[1]["amount"] == "12.345" and replica[2]["amount"] == "-0.005"


def test_a_value_decimal_38_s_cannot_hold_is_quarantined(tmp_path: Path) -> None:
    db = _database()
    config = _config(tmp_path, number_as="decimal(38,30)")
    writer = MemoryStagingWriter(config.staging_schema)
    _run(db, config, writer)
    txn = db.begin()
    txn.insert("APP", "MEASURES", {"ID": 4, "AMOUNT": Decimal("123456789"), "RATIO": None,
                                   "QTY": None})  # fmt: skip
    txn.commit()
    _run(db, config, writer)
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
    with pytest.raises(SyncStepError, match=r"APP.MEASURES.QTY is NUMBER\(10,2\)"):
        _run(_database(), config, MemoryStagingWriter(config.staging_schema))


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
        _run(db, config, writer)
    assert "number_as" in (raised.value.fix or "")
    assert writer.staged_rows(T) == []
