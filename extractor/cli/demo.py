"""``oracdc demo``: snapshot and sync cycles on a simulated Oracle with a live workload."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run the product on a simulated Oracle with a live workload",
        description="Create a working directory (oracdc.yml, a dbt project using this package), "
        "snapshot a simulated Oracle, run sync cycles while its workload goes on, and compare "
        "every replica with the source.",
    )
    parser.add_argument("--dir", type=Path, default=Path("demo"), help="working directory")
    parser.add_argument("--cycles", type=int, default=3, help="sync cycles (default 3)")
    parser.add_argument(
        "--transactions", type=int, default=200, help="source transactions per cycle"
    )
    parser.add_argument("--seed", type=int, default=42, help="workload seed")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from extractor.demo import DemoSettings, run_demo

    matched = run_demo(DemoSettings(args.dir, args.cycles, args.transactions, args.seed))
    return 0 if matched else 3
