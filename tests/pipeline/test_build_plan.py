"""What a sync cycle builds (``build_plan``) and when it builds everything (``sync``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from extractor.dictionary import ColumnDef, TableDef
from extractor.pipeline.build_plan import (
    FULL_BUILD_SELECTOR,
    columns_fingerprint,
    model_digest,
    plan_build,
)
from extractor.pipeline.sync import DbtSettings, _full_build_reason
from extractor.state.consolidation_state import (
    ConsolidatedBatch,
    cycles_since_full_build,
    record_build,
)

A = TableDef("HR", "A", (ColumnDef("ID", 1, "NUMBER", 22, 10, 0),), ("ID",), "ALL")
B = TableDef("HR", "B", (ColumnDef("ID", 1, "NUMBER", 22, 10, 0),), ("ID",), "ALL")
AT = "2026-01-01T00:00:00+00:00"


def _done(batch: int, table: TableDef) -> ConsolidatedBatch:
    return ConsolidatedBatch(batch, AT, "earlier", columns_fingerprint(table))


def test_nothing_new_builds_nothing() -> None:
    plan = plan_build(
        [A, B], {"HR.A": 4, "HR.B": 2}, {"HR.A": _done(4, A), "HR.B": _done(2, B)}, {}
    )
    assert plan.selectors == () and plan.reasons == {} and not plan.full


def test_a_table_with_a_new_batch_is_built_with_what_depends_on_it() -> None:
    plan = plan_build(
        [A, B], {"HR.A": 6, "HR.B": 2}, {"HR.A": _done(4, A), "HR.B": _done(2, B)}, {}
    )
    assert plan.selectors == ("hr__a+",)
    assert plan.reasons == {"HR.A": "new batches 5..6"}


def test_a_table_never_built_by_a_sync_is_built_even_without_batches() -> None:
    plan = plan_build([A, B], {}, {"HR.A": _done(0, A)}, {})
    assert plan.selectors == ("hr__b+",)
    assert plan.reasons == {"HR.B": "not built by a sync yet"}


def test_changed_columns_and_changed_model_files_build_their_replicas(tmp_path: Path) -> None:
    widened = replace(A, columns=(*A.columns, ColumnDef("NOTE", 2, "VARCHAR2", 20)))
    (tmp_path / "models" / "replica").mkdir(parents=True)
    model = tmp_path / "models" / "replica" / "hr__b.sql"
    model.write_text("select 1\n", encoding="utf-8")
    before = model_digest(tmp_path, B)
    model.write_text("select 2\n", encoding="utf-8")  # edited by hand
    consolidated = {
        "HR.A": _done(4, A),
        "HR.B": ConsolidatedBatch(2, AT, "earlier", columns_fingerprint(B), before),
    }
    digests = {"HR.A": "", "HR.B": model_digest(tmp_path, B)}
    plan = plan_build([widened, B], {"HR.A": 4, "HR.B": 2}, consolidated, digests)
    assert plan.reasons == {
        "HR.A": "columns changed in the dictionary",
        "HR.B": "model files changed",
    }
    old_record = {"HR.A": ConsolidatedBatch(4, AT), "HR.B": ConsolidatedBatch(2, AT)}
    assert plan_build([widened, B], {"HR.A": 4, "HR.B": 2}, old_record, digests).selectors == ()
    assert model_digest(tmp_path, A) == ""  # no model files


def test_a_full_build_selects_every_replica_with_the_reason() -> None:
    plan = plan_build([A, B], {}, {}, {}, full_build_reason="full build (asked: --all)")
    assert plan.full and plan.selectors == (FULL_BUILD_SELECTOR,)
    assert set(plan.reasons.values()) == {"full build (asked: --all)"}


def test_full_builds_come_on_the_first_cycle_when_asked_and_every_n_cycles(
    tmp_path: Path,
) -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    every_3 = DbtSettings(tmp_path, tmp_path, None, full_build_every=3)
    never = DbtSettings(tmp_path, tmp_path, None)
    assert _full_build_reason(False, never, tmp_path) == "full build (first sync cycle)"
    record_build(tmp_path, full=True, at=at)
    reasons = []
    for _ in range(6):
        reason = _full_build_reason(False, every_3, tmp_path)
        reasons.append(reason)
        record_build(tmp_path, full=reason is not None, at=at)
    assert reasons == [None, None, "full build (every 3 cycles)"] * 2
    assert _full_build_reason(False, never, tmp_path) is None
    assert _full_build_reason(True, never, tmp_path) == "full build (asked: --all)"
    assert cycles_since_full_build(tmp_path) == 0


def test_landing_counters_behind_the_checkpoint_ask_for_a_full_build(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from extractor.pipeline.sync import _counters_behind
    from extractor.state.checkpoint import Checkpoint
    from extractor.state.stats import ExtractorStats

    stats = ExtractorStats()
    extractor: Any = SimpleNamespace(stats=stats, checkpoint=Checkpoint(next_batch_id=8))
    assert _counters_behind(extractor)  # batches 1..7 handed out, none counted
    stats.record_commit("HR.A", 1, 10, None, batch_id=6)
    stats.batch_landed(7)  # a batch of only quarantined rows
    assert not _counters_behind(extractor)
    record_build(tmp_path, full=True, at=datetime(2026, 1, 1, tzinfo=UTC))
    never = DbtSettings(tmp_path, tmp_path, None)
    assert _full_build_reason(False, never, tmp_path, counters_behind=False) is None
    reason = _full_build_reason(False, never, tmp_path, counters_behind=True)
    assert reason is not None and "landing counters missed a batch" in reason


def test_a_table_waiting_for_its_snapshot_is_not_built() -> None:
    """Part of its new snapshot may have landed without its reset marker."""
    plan = plan_build(
        [A, B],
        {"HR.A": 6, "HR.B": 3},
        {"HR.A": _done(4, A), "HR.B": _done(2, B)},
        {},
        waiting={"HR.A"},
    )
    assert plan.selectors == ("hr__b+",)
    assert plan.reasons == {"HR.B": "new batches 3..3"}
    assert plan.excluded == ()


def test_a_full_build_excludes_a_table_waiting_for_its_snapshot() -> None:
    plan = plan_build([A, B], {}, {}, {}, full_build_reason="full build (asked)", waiting={"HR.A"})
    assert plan.selectors == (FULL_BUILD_SELECTOR,)
    assert plan.excluded == ("hr__a+",)
    assert plan.reasons == {"HR.B": "full build (asked)"}


def test_the_excluded_models_reach_dbt(monkeypatch: Any, tmp_path: Path) -> None:
    import extractor.pipeline.sync as sync

    calls: list[list[str]] = []

    class Done:
        success = True

    def run_dbt(args: list[str], **_: Any) -> Done:
        calls.append(args)
        return Done()

    monkeypatch.setattr(sync, "run_dbt", run_dbt)
    dbt = DbtSettings(project_dir=tmp_path, profiles_dir=tmp_path, target=None, variables={})
    sync.run_dbt_build(dbt, select=(FULL_BUILD_SELECTOR,), exclude=("hr__a+",))
    assert calls == [["build", "--select", FULL_BUILD_SELECTOR, "--exclude", "hr__a+"]]
