"""``oracdc demo``: the whole product on a simulated Oracle with a live workload.

Creates a working directory as ``oracdc init`` does, with ``oracdc.yml`` for a simulated
source and an example dependent view; then
takes the initial snapshot and runs several sync cycles while the workload goes on, printing
per table the replica's rows, the lag and the comparison with the source.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from extractor.config import load_config
from extractor.dbt_gen.user_project import PROJECT_FILES, write_user_project
from extractor.errors import SyncStepError
from extractor.lakehouse.dbt_runner import replica_schema, run_dbt
from extractor.log_setup import attach_log_file
from extractor.pipeline.runtime import open_runtime
from extractor.pipeline.sync import dbt_settings, first_dbt_failure, run_cycle
from extractor.source.simulated_source import SimulatedSource
from extractor.verify.reconcile import verify_table
from extractor.verify.replica_digest import ReplicaDigests
from extractor.verify.report import example_lines, table_line
from extractor.verify.source_digest import SourceDigests

LOG = logging.getLogger(__name__)

_CONFIG = """\
# oracdc demo: a simulated Oracle database with a live workload. The database is kept under
# data/sim: every oracdc command on this file (status, verify, sync) sees the same one, and
# each sync cycle first runs transactions_per_cycle more transactions in it.
source:
  kind: sim
  tables: 5
  seed: {seed}
  transactions: 0
  transactions_per_cycle: {transactions}
tables:
  - SIM.*
data_dir: data
staging_schema: oracdc_staging
error_policy: fail
dbt:
  project_dir: .
"""

_VIEW = """\
-- An example dependent view: customers with their order count and total, from two replicas.
select
    c.id as customer_id,
    c.name,
    count(o.order_id) as orders,
    sum(o.amount) as total_amount
from {{ ref('sim__customers') }} as c
left join {{ ref('sim__orders') }} as o on o.customer_id = c.id
group by c.id, c.name
"""


@dataclass(frozen=True)
class DemoSettings:
    work_dir: Path
    cycles: int = 3
    transactions_per_cycle: int = 200
    seed: int = 42


def prepare_work_dir(work_dir: Path, seed: int = 42, transactions_per_cycle: int = 200) -> None:
    """The project ``oracdc init`` writes, with an oracdc.yml for the simulated source and an
    example view; fresh data (a new simulated database) every time."""
    work_dir.mkdir(parents=True, exist_ok=True)
    for stale in ("data", "target", "dbt_packages", "logs", "models"):
        shutil.rmtree(work_dir / stale, ignore_errors=True)
    for stale_file in (*PROJECT_FILES, "package-lock.yml"):
        (work_dir / stale_file).unlink(missing_ok=True)
    config = _CONFIG.format(seed=seed, transactions=transactions_per_cycle)
    write_user_project(work_dir, config=config)
    (work_dir / "models" / "views" / "customer_orders.sql").write_text(_VIEW, encoding="utf-8")


def run_demo(settings: DemoSettings) -> bool:
    """Run the demo; returns True when every replica matches the source at the end."""
    work_dir = settings.work_dir.resolve()
    prepare_work_dir(work_dir, settings.seed, settings.transactions_per_cycle)
    config = load_config(work_dir / "oracdc.yml")
    attach_log_file(config.data_dir)
    print("demo: starting Spark (about 30 s the first time)", flush=True)
    dbt = dbt_settings(config)
    matched = False
    with open_runtime(config) as runtime:
        source = runtime.source
        assert isinstance(source, SimulatedSource) and source.simulation is not None
        db, workload = source.simulation.database, source.simulation.runner
        print(
            f"demo: simulated Oracle with {len(workload.tables)} tables, "
            f"{settings.transactions_per_cycle} transactions before each cycle, in {work_dir}",
            flush=True,
        )
        deps = run_dbt(["deps"], project_dir=work_dir, profiles_dir=work_dir)
        if not deps.success:
            raise SyncStepError("dbt deps", first_dbt_failure(deps)[1])
        for cycle in range(1, settings.cycles + 1):
            started = time.monotonic()
            report = run_cycle(runtime, dbt)
            phases = ", ".join(f"{k} {v:.1f}s" for k, v in report.seconds.items())
            print(
                f"demo: cycle {cycle}/{settings.cycles}: {report.snapshot.rows:,} snapshot rows, "
                f"{report.stream.change_rows:,} change rows from "
                f"{report.stream.transactions:,} transactions "
                f"({time.monotonic() - started:.1f}s: {phases})",
                flush=True,
            )
        mined_to = runtime.extractor.checkpoint.mined_to_scn
        assert mined_to is not None
        lag = db.current_scn() - mined_to
        source_side = SourceDigests(runtime.source, mined_to)
        replica_side = ReplicaDigests(runtime.spark, replica_schema())
        results = [
            verify_table(
                runtime.extractor.registry.verified(table), source_side, replica_side, mined_to
            )
            for table in runtime.extractor.registry.resolve()
        ]
        print(f"\nreplicas at SCN {mined_to:,} (source at {db.current_scn():,}, lag {lag} SCNs;")
        print(f"{len(workload.open_xids)} transactions still open in the source are not applied):")
        for result in results:
            print("  " + table_line(result))
            if not result.matches:
                print("\n".join(example_lines(result, 5)))
        matched = all(r.matches for r in results)
    print(
        "\ndemo: every replica matches the source"
        if matched
        else "\ndemo: DIFFERENCES found (see above)"
    )
    config_path = work_dir / "oracdc.yml"
    print(
        f"demo: the simulated database stays in {work_dir / 'data' / 'sim'}; go on with:\n"
        f"  .venv/bin/oracdc status --config {config_path}\n"
        f"  .venv/bin/oracdc verify --config {config_path}\n"
        f"  .venv/bin/oracdc sync --once --config {config_path}   "
        f"(runs {settings.transactions_per_cycle} more transactions, then a cycle)\n"
        f"the dbt project is {work_dir} (docs/dbt.md)"
    )
    return matched
