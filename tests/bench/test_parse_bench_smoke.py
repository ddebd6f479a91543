"""The parse benchmark runs end to end on a tiny input (so it cannot rot)."""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import parse_bench

from extractor.parse import implementation, parse_redo


def test_generated_statements_have_10_to_20_columns_and_all_parse() -> None:
    table, statements = parse_bench.generate_statements(30, seed=7)
    assert 10 <= len(table.columns) <= 20
    operations = {parse_redo(sql).operation for sql in statements}
    assert operations == {"INSERT", "UPDATE", "DELETE"}


def test_benchmark_reports_positive_finite_rates() -> None:
    result = parse_bench.run_bench(statements=20, seed=3, sqlglot_statements=5, rounds=1)
    rates = (
        result.ours_per_s,
        result.ours_typed_per_s,
        result.two_steps_per_s,
        result.bare_tokenizer_per_s,
        result.sqlglot_per_s,
    )
    assert all(rate > 0 and math.isfinite(rate) for rate in rates)
    assert result.statements == 20
    assert result.sqlglot_statements == 5
    assert "ours / sqlglot" in parse_bench.report(result)
    if implementation.compiled is not None:  # "parse + type" is the one-pass path
        assert result.one_pass_declined == 0
