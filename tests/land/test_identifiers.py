"""Names that reach Spark SQL: validated, quoted, and injection refused before any SQL runs."""

from __future__ import annotations

from dataclasses import replace

import pytest

from extractor.errors import SparkIdentifierError
from extractor.land.spark_sql import quote_identifier
from extractor.land.staging_writer import StagingWriter
from tests.land.records import EMP


class RecordingSpark:
    """Stands in for a SparkSession: records SQL, answers that no table exists."""

    def __init__(self) -> None:
        self.statements: list[str] = []

    def sql(self, statement: str) -> None:
        self.statements.append(statement)


def test_schema_name_designed_to_inject_sql_is_rejected_before_any_sql() -> None:
    spark = RecordingSpark()

    with pytest.raises(SparkIdentifierError, match="schema name"):
        StagingWriter(spark, "staging; DROP DATABASE prod CASCADE --")

    assert spark.statements == []


def test_table_name_designed_to_inject_sql_is_rejected_before_any_sql() -> None:
    spark = RecordingSpark()
    writer = StagingWriter(spark, "staging")
    hostile = replace(EMP, name="EMP_log (x INT) USING PARQUET; DROP TABLE staging.hr__emp_log --")

    with pytest.raises(SparkIdentifierError) as raised:
        writer.ensure_table(hostile)

    assert raised.value.fix is not None
    assert spark.statements == ["CREATE DATABASE IF NOT EXISTS `staging`"]


def test_upper_case_oracle_names_become_plain_lower_case_identifiers() -> None:
    writer = StagingWriter(RecordingSpark(), "staging")

    assert writer.staging_table(EMP) == "`staging`.`hr__emp_log`"


def test_quoted_column_name_doubles_embedded_backticks() -> None:
    assert quote_identifier("a`b") == "`a``b`"


def test_empty_column_name_is_rejected() -> None:
    with pytest.raises(SparkIdentifierError):
        quote_identifier("")
